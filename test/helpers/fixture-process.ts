import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./paths.js";

export interface FixtureProcess {
  child: ChildProcess;
  /** Its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** All it has printed so far. */
  output(): string;
  /** Resolves once it has printed `text`; throws if it exits first or takes more than 30 s. */
  until(text: string): Promise<void>;
}

/** A TypeScript fixture (`test/.../fixtures/*.mts`) as a process of its own, through tsx; stdout collected, stderr shown. */
export function startFixture(path: string, args: string[], opts: { stdin?: boolean } = {}): FixtureProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, path), ...args], { cwd: ROOT, stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const until = async (text: string) => {
    for (let i = 0; !out.includes(text); i++) {
      if (i > 1500 || child.exitCode !== null || child.signalCode !== null) throw new Error(`${path} never printed "${text}": ${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { child, exited, output: () => out, until };
}
