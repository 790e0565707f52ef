import { resolve } from "node:path";
import { SANDBOX_TYPES, type SandboxType } from "../config/sandbox-config.js";
import { errorMessage } from "../errors.js";
import { CommandLineError, parseCommand, type ParsedCommand } from "../shared/parse-command.js";
import { SANDBOX_COMMANDS, type SandboxCommand } from "./sandbox-commands.js";
import type { SandboxConfig } from "../config/sandbox-config.js";
import { createSandboxProvider } from "./registry.js";
import { shellJoin } from "../shared/shell-quote.js";

export interface CliIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

class UsageError extends Error {}

function providerType(args: ParsedCommand, config: SandboxConfig): SandboxType {
  const name = args.string("provider") ?? config.type;
  if (!(SANDBOX_TYPES as readonly string[]).includes(name)) throw new UsageError(`unknown provider "${name}" (one of: ${SANDBOX_TYPES.join(", ")})`);
  return name as SandboxType;
}

/** `open-swe sandbox …` for operators: returns the process exit code (a command's own code for exec). */
export async function runSandboxCli(argv: string[], config: SandboxConfig, io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  try {
    const command = `sandbox ${argv[0] ?? ""}`;
    if (!Object.hasOwn(SANDBOX_COMMANDS, command)) throw new UsageError(argv[0] ? `unknown command "${argv[0]}": one of exec, ls, rm` : "missing command: exec, ls or rm");
    const args = parseCommand(command, SANDBOX_COMMANDS[command as SandboxCommand], argv.slice(1));
    if (args.help) {
      io.stdout.write(`${SANDBOX_COMMANDS[command as SandboxCommand].usage}\n`);
      return 0;
    }
    const verb = argv[0];
    const provider = createSandboxProvider(config, providerType(args, config));

    if (verb === "exec") {
      const words = args.rest;
      if (words.length === 0) throw new UsageError("exec needs a command after --");
      const network = args.string("network") ?? "on";
      if (network !== "on" && network !== "off") throw new UsageError("--network is on or off");
      const workspace = args.string("workspace");
      if (workspace && provider.type !== "local") throw new UsageError("--workspace only works with the local provider");
      const timeoutArg = args.string("timeout");
      const timeout = timeoutArg !== undefined ? Number(timeoutArg) : undefined;
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout is a positive number of milliseconds");
      const sandbox = await provider.create({ network: network === "on", labels: { source: "cli" }, ...(workspace ? { hostWorkspace: resolve(workspace) } : {}) });
      try {
        // One argument is a shell string (`-- 'ls | wc -l'`); several are an argv, quoted as such.
        const line = words.length === 1 ? words[0]! : shellJoin(words);
        const r = await sandbox.exec(line, timeout ? { timeoutMs: timeout } : {});
        io.stdout.write(r.stdout);
        io.stderr.write(r.stderr);
        if (r.truncated) io.stderr.write("[sandbox] output truncated\n");
        if (r.timedOut) io.stderr.write("[sandbox] command timed out and was killed\n");
        return r.exitCode;
      } finally {
        await provider.destroy(sandbox.id);
      }
    }
    if (verb === "ls") {
      for (const s of await provider.list()) {
        const labels = Object.entries(s.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(",");
        io.stdout.write(`${s.id}\t${s.provider}\t${s.createdAt ?? "-"}\t${labels || "-"}\n`);
      }
      return 0;
    }
    if (verb === "rm") {
      const id = args.positionals[0]!;
      if (!(await provider.list()).some((s) => s.id === id)) {
        io.stderr.write(`no sandbox ${id} (${provider.type})\n`);
        return 1;
      }
      await provider.destroy(id);
      io.stdout.write(`removed ${id}\n`);
      return 0;
    }
    throw new UsageError(verb ? `unknown command "${verb}"` : "missing command");
  } catch (err) {
    if (err instanceof UsageError || err instanceof CommandLineError) {
      io.stderr.write(`open-swe: ${err.message}\n`);
      return 2;
    }
    io.stderr.write(`sandbox: ${errorMessage(err)}\n`);
    return 1;
  }
}
