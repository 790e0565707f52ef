import { Redis, type RedisOptions } from "ioredis";
import { OpenSweError } from "../errors.js";

/**
 * Opens an ioredis connection from a URL: `redis://`, `rediss://`, or `unix:/path/to.sock`
 * (optionally `unix:/path/to.sock?db=2`). BullMQ needs `maxRetriesPerRequest: null`.
 */
export function connectRedis(url: string, extra: RedisOptions = {}): Redis {
  const base: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: false, ...extra };
  if (url.startsWith("unix:")) {
    const parsed = new URL(url.replace(/^unix:(\/\/)?/, "unix://localhost"));
    const db = parsed.searchParams.get("db");
    return new Redis({ ...base, path: decodeURIComponent(parsed.pathname), ...(db ? { db: Number(db) } : {}) });
  }
  if (url.startsWith("redis://") || url.startsWith("rediss://")) return new Redis(url, base);
  throw new OpenSweError("config_invalid", `unsupported Redis URL "${url}": use redis://, rediss:// or unix:/path`);
}
