import { spawn } from "node:child_process";
import { openSync, closeSync } from "node:fs";

/**
 * The "loaded" condition of bench:agent and bench:scale: one core kept busy by another process
 * (`yes > /dev/null`), started here and killed by `stop` (and if the bench itself exits first).
 */
export function busyCore(): { pid: number | undefined; stop(): void } {
  const devNull = openSync("/dev/null", "w");
  const child = spawn("yes", [], { stdio: ["ignore", devNull, "ignore"] });
  closeSync(devNull);
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  return {
    pid: child.pid,
    stop: () => {
      process.off("exit", kill);
      kill();
    },
  };
}

/** The variants a bench runs, from `--variants idle,loaded` (both by default). */
export function benchVariants(argv: string[]): Array<"idle" | "loaded"> {
  const at = argv.indexOf("--variants");
  const raw = at >= 0 ? (argv[at + 1] ?? "") : "idle,loaded";
  const picked = raw.split(",").filter((v): v is "idle" | "loaded" => v === "idle" || v === "loaded");
  if (picked.length === 0) throw new Error(`--variants takes idle, loaded or idle,loaded (got "${raw}")`);
  return picked;
}

/** Runs `fn` with one core busy when `variant` is "loaded". */
export async function inVariant<T>(variant: "idle" | "loaded", fn: () => Promise<T>): Promise<T> {
  const busy = variant === "loaded" ? busyCore() : null;
  try {
    return await fn();
  } finally {
    busy?.stop();
  }
}
