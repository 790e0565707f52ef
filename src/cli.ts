import { existsSync } from "node:fs";
import type { BenchLoaders } from "./cli/commands.js";
import { resolveCommand } from "./cli/resolve-command.js";
import { errorLine } from "./cli/error-line.js";
import { exitStatus } from "./cli/exit-status.js";

/** The only imports of bench/: dynamic, the one benchmark run (the compiler checks every name has one). */
const BENCHES: BenchLoaders = {
  intake: () => import("../bench/intake.js"),
  agent: () => import("../bench/agent.js"),
  sandbox: () => import("../bench/sandbox.js"),
  checkpoints: () => import("../bench/checkpoints.js"),
  scale: () => import("../bench/scale.js"),
  review: () => import("../bench/review.js"),
  tokens: () => import("../bench/tokens.js"),
  live: () => import("../bench/live.js"),
  insights: () => import("../bench/insights.js"),
};

/**
 * `open-swe`: resolve the command and print its usage, or load only that command's modules and run it.
 * Every failure is one line on stderr — never a stack trace — and exit 2 when it was refused (the command
 * line or the configuration is wrong), 1 when it failed while running (`exitStatus`).
 */
async function main(argv: string[]): Promise<number> {
  const resolved = resolveCommand(argv);
  if (resolved.kind === "usage") {
    process.stdout.write(`${resolved.text}\n`);
    return 0;
  }
  if (existsSync(".env")) process.loadEnvFile(".env");
  if (resolved.kind === "version") {
    const { readBuildInfo, versionLine } = await import("./shared/build-info.js");
    process.stdout.write(`${versionLine(readBuildInfo(process.env["OPEN_SWE_COMMIT"]))}\n`);
    return 0;
  }
  const { runCommand } = await import("./cli/run-command.js");
  return await runCommand(resolved, process.env, BENCHES);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`open-swe: ${errorLine(err)}\n`);
  process.exit(exitStatus(err));
}
