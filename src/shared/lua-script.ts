import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script run by its SHA (EVALSHA): the text is sent only when Redis does not know it yet (a new or
 * restarted server answers NOSCRIPT, and the script goes once with EVAL). For scripts on hot paths.
 */
export function luaScript(text: string): (redis: Redis, numKeys: number, ...keysAndArgs: Array<string | Buffer>) => Promise<unknown> {
  const sha = createHash("sha1").update(text).digest("hex");
  return (redis, numKeys, ...keysAndArgs) =>
    redis.evalsha(sha, numKeys, ...keysAndArgs).catch((err: unknown) => {
      if (err instanceof Error && err.message.startsWith("NOSCRIPT")) return redis.eval(text, numKeys, ...keysAndArgs);
      throw err;
    });
}
