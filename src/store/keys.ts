/** All Redis keys share one prefix so tests and tenants never collide. */
export function keyer(prefix: string): (...parts: (string | number)[]) => string {
  return (...parts) => [prefix, ...parts].join(":");
}

/** The Redis key of a thread's run lock (`RunLocks`; the sandbox sweep reads it atomically with the sandbox's key). */
export function runLockKey(prefix: string, threadId: string): string {
  return keyer(`${prefix}:runlock`)(threadId);
}
