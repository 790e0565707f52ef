import { Redis } from "ioredis";
import type { RedisTarget } from "../config/env.js";
import { OpenSweError } from "../errors.js";

export interface ConnectOptions {
  connectionName?: string;
  /** Fail fast instead of queueing commands while disconnected (health checks, CLI). */
  enableOfflineQueue?: boolean;
  /**
   * Send every command issued in one event-loop turn in one write (ioredis' auto-pipelining): concurrent
   * webhooks share a round trip. Not for a connection that blocks (a BullMQ worker's).
   */
  autoPipelining?: boolean;
}

export type { RedisTarget };

/**
 * Opens an ioredis connection: `redis://`, `rediss://` (TLS; a private CA through `NODE_EXTRA_CA_CERTS`),
 * `unix:/path/to.sock` (optionally `unix:/path/to.sock?db=2`), or sentinels. BullMQ needs `maxRetriesPerRequest: null`.
 */
export function connectRedis(target: string | RedisTarget, opts: ConnectOptions = {}): Redis {
  const common = {
    maxRetriesPerRequest: null,
    ...(opts.connectionName ? { connectionName: opts.connectionName } : {}),
    ...(opts.enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
    ...(opts.autoPipelining ? { enableAutoPipelining: true } : {}),
  };
  if (typeof target !== "string" && "sentinels" in target) {
    return new Redis({
      ...common,
      sentinels: target.sentinels,
      name: target.name,
      ...(target.password ? { password: target.password } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
    });
  }
  const url = typeof target === "string" ? target : target.url;
  if (url.startsWith("unix:")) {
    const parsed = new URL(url.replace(/^unix:(\/\/)?/, "unix://localhost"));
    const db = parsed.searchParams.get("db");
    return new Redis({ ...common, path: decodeURIComponent(parsed.pathname), db: db ? Number(db) : 0 });
  }
  if (url.startsWith("redis://") || url.startsWith("rediss://")) return new Redis(url, common);
  throw new OpenSweError("config_invalid", `unsupported Redis URL "${url}": use redis://, rediss:// or unix:/path`);
}
