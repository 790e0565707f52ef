import { resolve } from "node:path";
import { errorMessage } from "../errors.js";
import type { SandboxConfig } from "./config.js";
import { createSandboxProvider } from "./registry.js";
import { shellJoin } from "./shell-quote.js";
import { SANDBOX_TYPES, type SandboxType } from "./types.js";

export interface CliIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

const USAGE = `usage:
  sandbox exec [--provider NAME] [--network on|off] [--workspace DIR] [--timeout MS] -- <command…>
  sandbox ls [--provider NAME]
  sandbox rm <id> [--provider NAME]
`;

interface Parsed {
  positional: string[];
  command: string[];
  flags: Map<string, string>;
}

function parse(argv: string[]): Parsed {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  const dash = argv.indexOf("--");
  const head = dash === -1 ? argv : argv.slice(0, dash);
  for (let i = 0; i < head.length; i++) {
    const a = head[i]!;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq !== -1) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else flags.set(a.slice(2), head[++i] ?? "");
    } else positional.push(a);
  }
  return { positional, command: dash === -1 ? [] : argv.slice(dash + 1), flags };
}

class UsageError extends Error {}

function providerType(flags: Map<string, string>, config: SandboxConfig): SandboxType {
  const name = flags.get("provider") ?? config.type;
  if (!(SANDBOX_TYPES as readonly string[]).includes(name)) throw new UsageError(`unknown provider "${name}" (one of: ${SANDBOX_TYPES.join(", ")})`);
  return name as SandboxType;
}

/** `open-swe sandbox …` for operators: returns the process exit code (a command's own code for exec). */
export async function runSandboxCli(argv: string[], config: SandboxConfig, io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  try {
    const { positional, command, flags } = parse(argv);
    const verb = positional[0];
    const known = new Set(["provider", "network", "workspace", "timeout"]);
    for (const f of flags.keys()) if (!known.has(f)) throw new UsageError(`unknown option --${f}`);
    const provider = createSandboxProvider(config, providerType(flags, config));

    if (verb === "exec") {
      if (command.length === 0) throw new UsageError("exec needs a command after --");
      const network = flags.get("network") ?? "on";
      if (network !== "on" && network !== "off") throw new UsageError("--network is on or off");
      const workspace = flags.get("workspace");
      if (workspace && provider.type !== "local") throw new UsageError("--workspace only works with the local provider");
      const timeout = flags.has("timeout") ? Number(flags.get("timeout")) : undefined;
      if (timeout !== undefined && !(timeout > 0)) throw new UsageError("--timeout is a positive number of milliseconds");
      const sandbox = await provider.create({ network: network === "on", labels: { source: "cli" }, ...(workspace ? { hostWorkspace: resolve(workspace) } : {}) });
      try {
        // One argument is a shell string (`-- 'ls | wc -l'`); several are an argv, quoted as such.
        const line = command.length === 1 ? command[0]! : shellJoin(command);
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
        const labels = Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(",");
        io.stdout.write(`${s.id}\t${s.provider}\t${s.createdAt ?? "-"}\t${labels || "-"}\n`);
      }
      return 0;
    }
    if (verb === "rm") {
      const id = positional[1];
      if (!id) throw new UsageError("rm needs a sandbox id");
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
    if (err instanceof UsageError) {
      io.stderr.write(`${err.message}\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`sandbox: ${errorMessage(err)}\n`);
    return 1;
  }
}
