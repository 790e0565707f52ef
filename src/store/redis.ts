import { Redis } from "ioredis";
import { OpenSweError } from "../errors.js";

export interface ConnectOptions {
  connectionName?: string;
  /** Fail fast instead of queueing commands while disconnected (health checks, CLI). */
  enableOfflineQueue?: boolean;
}

/**
 * Opens an ioredis connection from a URL: `redis://`, `rediss://`, or `unix:/path/to.sock`
 * (optionally `unix:/path/to.sock?db=2`). BullMQ needs `maxRetriesPerRequest: null`.
 */
export function connectRedis(url: string, opts: ConnectOptions = {}): Redis {
  const common = {
    maxRetriesPerRequest: null,
    ...(opts.connectionName ? { connectionName: opts.connectionName } : {}),
    ...(opts.enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
  };
  if (url.startsWith("unix:")) {
    const parsed = new URL(url.replace(/^unix:(\/\/)?/, "unix://localhost"));
    const db = parsed.searchParams.get("db");
    return new Redis({ ...common, path: decodeURIComponent(parsed.pathname), db: db ? Number(db) : 0 });
  }
  if (url.startsWith("redis://") || url.startsWith("rediss://")) return new Redis(url, common);
  throw new OpenSweError("config_invalid", `unsupported Redis URL "${url}": use redis://, rediss:// or unix:/path`);
}
