import { existsSync } from "node:fs";
import type { BenchLoaders } from "./cli/commands.js";
import { resolveCommand } from "./cli/resolve-command.js";
import { errorLine } from "./cli/error-line.js";

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
 * Every failure is one line on stderr and exit 2 — never a stack trace.
 */
async function main(argv: string[]): Promise<number> {
  const resolved = resolveCommand(argv);
  if (resolved.kind === "usage") {
    process.stdout.write(`${resolved.text}\n`);
    return 0;
  }
  if (existsSync(".env")) process.loadEnvFile(".env");
  const { runCommand } = await import("./cli/run-command.js");
  return await runCommand(resolved, process.env, BENCHES);
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`open-swe: ${errorLine(err)}\n`);
  process.exit(2);
}
