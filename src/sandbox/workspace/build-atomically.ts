import { existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";

const inFlight = new Map<string, Promise<string>>();

/**
 * Builds `dir` once: callers in this process share one build; the build happens in a temp sibling
 * renamed into place, so another process never sees a half-built directory. If the build fails but
 * another process finished `dir` meanwhile (`ready` is there), that one is used.
 */
export function buildAtomically(dir: string, ready: string, build: (tmp: string) => Promise<void>, refresh?: () => Promise<void>): Promise<string> {
  const running = inFlight.get(dir);
  if (running) return running;
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
  inFlight.set(dir, work);
  return work;
}
