const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier call with the same key has settled (a FIFO per key, in this
 * process). Keys are dropped once their queue drains, so the map holds only paths in use.
 */
export function withPathLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = tails.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
