import type { Logger } from "pino";
import type { SandboxCache } from "./lifecycle.js";

/** Well inside every vendor's deadline: Daytona's auto-stop (15 min), E2B's lease and Modal's idle timeout. */
export const KEEP_ALIVE_EVERY_MS = 5 * 60_000;

/**
 * While a run holds its thread, keeps the thread's vendor sandbox (whichever handle the cache has now)
 * from being stopped or killed by the vendor. Returns the function that stops it.
 */
export function holdSandbox(cache: SandboxCache, threadId: string, log: Logger, everyMs = KEEP_ALIVE_EVERY_MS): () => void {
  let busy = false;
  const timer = setInterval(() => {
    const sandbox = cache.get(threadId);
    if (busy || !sandbox?.keepAlive) return;
    busy = true;
    void sandbox
      .keepAlive()
      .then((ok) => {
        if (!ok) log.warn({ threadId, sandbox: sandbox.id }, "the sandbox vendor refused a keep-alive; the sandbox may stop mid-run");
      })
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
