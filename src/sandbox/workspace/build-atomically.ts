import { existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";

interface Flight {
  work: Promise<string>;
  /** The refresh that starts once `work` ends, shared by the callers that came while it ran. */
  next?: Promise<string>;
}

const inFlight = new Map<string, Flight>();

export interface BuildAtomicallyOptions {
  /**
   * Callers share only a refresh that started after they called: one that came while a refresh was
   * running waits for the next (a fetch already under way may have read the refs before the push the
   * caller was told about). Without it, a running build or refresh is shared as it is.
   */
  refreshAfterCall?: boolean;
}

/**
 * Builds `dir` once: callers in this process share one build; the build happens in a temp sibling
 * renamed into place, so another process never sees a half-built directory. If the build fails but
 * another process finished `dir` meanwhile (`ready` is there), that one is used.
 */
export function buildAtomically(dir: string, ready: string, build: (tmp: string) => Promise<void>, refresh?: () => Promise<void>, opts: BuildAtomicallyOptions = {}): Promise<string> {
  const running = inFlight.get(dir);
  if (!running) return start(dir, ready, build, refresh);
  if (!opts.refreshAfterCall) return running.work;
  // Whatever runs when this one starts began after this call: it is shared as it is.
  running.next ??= running.work.then(
    () => inFlight.get(dir)?.work ?? start(dir, ready, build, refresh),
    () => inFlight.get(dir)?.work ?? start(dir, ready, build, refresh),
  );
  return running.next;
}

function start(dir: string, ready: string, build: (tmp: string) => Promise<void>, refresh?: () => Promise<void>): Promise<string> {
  const work = (async () => {
    if (existsSync(ready)) {
      await refresh?.();
      return dir;
    }
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    try {
      await build(tmp);
      await rename(tmp, dir);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      if (!existsSync(ready)) throw err;
    }
    return dir;
  })().finally(() => inFlight.delete(dir));
  inFlight.set(dir, { work });
  return work;
}
