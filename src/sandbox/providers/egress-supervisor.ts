import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Socket } from "node:net";
import type { Logger } from "../../logger.js";
import { SandboxError } from "../types.js";
import type { EgressRules } from "./egress-policy.js";

/** Starts that fail before the proxy listens, in a row, before we stop retrying until asked again. */
const MAX_FAILED_STARTS = 5;
const READY_TIMEOUT_MS = 30_000;

/** The proxy process: from the TypeScript sources through tsx in a checkout, compiled in dist/. */
function entryCommand(): string[] {
  const here = fileURLToPath(import.meta.url);
  const ts = join(dirname(here), "egress-proxy-main.ts");
  if (here.endsWith(".ts") && existsSync(ts)) {
    return ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href, ts];
  }
  return [join(dirname(here), "egress-proxy-main.js")];
}

export interface EgressProxyProcess {
  /** Resolves once a proxy process listens on the socket (at once if one does); starts one if needed. */
  whenReady(): Promise<void>;
  /** The running proxy's pid, if any. */
  pid(): number | undefined;
  /** How many times the proxy was started again after it died. */
  restarts(): number;
  stop(): void;
}

/**
 * Runs the egress proxy out of process and starts it again whenever it dies. It holds no secret (a
 * bare environment), has its own heap cap and descriptor table, and anything that kills it costs the
 * sandboxes a reset connection, never the worker its jobs.
 */
export function superviseEgressProxy(socketPath: string, rules: EgressRules, log: Pick<Logger, "warn">): EgressProxyProcess {
  let child: ChildProcess | undefined;
  let ready: Promise<void> | undefined;
  let restarts = 0;
  let failedStarts = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const start = (): Promise<void> => {
    const args = ["--max-old-space-size=128", ...entryCommand(), socketPath, JSON.stringify(rules)];
    const proc = spawn(process.execPath, args, { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", UV_THREADPOOL_SIZE: "16" }, stdio: ["pipe", "pipe", "pipe"] });
    child = proc;
    let lastErr = "";
    for (const stream of [proc.stdin, proc.stdout, proc.stderr]) stream!.on("error", () => undefined);
    proc.stderr!.on("data", (d: Buffer) => (lastErr = (lastErr + d.toString()).slice(-2000)));
    const up = new Promise<void>((resolve, reject) => {
      const readyTimer = setTimeout(() => {
        proc.kill("SIGKILL");
        reject(new SandboxError("unavailable", "the egress proxy did not start in time"));
      }, READY_TIMEOUT_MS);
      proc.on("error", (e) => {
        clearTimeout(readyTimer);
        reject(new SandboxError("unavailable", `cannot start the egress proxy: ${e.message}`));
      });
      proc.stdout!.on("data", (d: Buffer) => {
        if (!/^ready \d+/.test(d.toString())) return;
        clearTimeout(readyTimer);
        failedStarts = 0;
        proc.stdout!.destroy();
        resolve();
      });
      proc.on("exit", (code, signal) => {
        clearTimeout(readyTimer);
        const line = lastErr.trim().split("\n")[0] ?? "";
        reject(new SandboxError("unavailable", `the egress proxy exited at start (${signal ?? code}): ${line}`));
      });
    });
    proc.on("exit", (code, signal) => {
      if (child === proc) {
        child = undefined;
        ready = undefined;
      }
      if (stopped) return;
      log.warn({ code, signal, stderr: lastErr.trim().split("\n")[0] }, "egress proxy exited; starting it again");
      if (++failedStarts > MAX_FAILED_STARTS) return;
      restarts++;
      timer = setTimeout(() => void ensure().catch(() => undefined), Math.min(50 * 2 ** failedStarts, 5_000));
      timer.unref();
    });
    // The worker must not wait for the proxy to exit, and the proxy exits when our end of stdin closes.
    (proc.stdin as Socket).unref();
    (proc.stdout as Socket).unref();
    (proc.stderr as Socket).unref();
    proc.unref();
    return up;
  };

  const ensure = (): Promise<void> => {
    if (stopped) return Promise.reject(new SandboxError("unavailable", "the egress proxy was stopped"));
    if (!ready) {
      ready = start();
      ready.catch(() => undefined);
    }
    return ready;
  };

  return {
    whenReady: () => {
      if (failedStarts > MAX_FAILED_STARTS) failedStarts = 0;
      return ensure();
    },
    pid: () => child?.pid,
    restarts: () => restarts,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      child?.kill("SIGKILL");
    },
  };
}
