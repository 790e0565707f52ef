/** All Redis keys share one prefix so tests and tenants never collide. */
export function keyer(prefix: string): (...parts: (string | number)[]) => string {
  return (...parts) => [prefix, ...parts].join(":");
}
