import type { Redis } from "ioredis";
import type { QueueName } from "./names.js";

/**
 * Host affinity for local sandboxes. A worker with local sandboxes is a *host* (its id lives in its
 * DATA_DIR); it also consumes `<queue>@<host id>` for the queues below, records which host each sandbox
 * it makes lives on, and keeps a liveness key alive in Redis. A thread's job goes to its sandbox's host
 * while that host is alive, else to the shared queue (where the run finds its sandbox gone and says so).
 */
export const HOST_QUEUES = ["agent", "cleanup"] as const satisfies readonly QueueName[];
export type HostQueue = (typeof HOST_QUEUES)[number];

export function isHostQueue(name: QueueName): name is HostQueue {
  return (HOST_QUEUES as readonly string[]).includes(name);
}

/** A host id: safe in a BullMQ queue name and a Redis key. */
export const HOST_ID_RE = /^h-[a-z0-9]{6,32}$/;

export function hostQueueName(queue: HostQueue, hostId: string): string {
  return `${queue}@${hostId}`;
}

/** The thread's sandbox id (or a creation sentinel / expiry marker). */
export function threadSandboxKey(keyPrefix: string, threadId: string): string {
  return `${keyPrefix}:thread:${threadId}:sandbox`;
}

/** The host a local sandbox lives on (vendor sandboxes record none: any worker reaches them). */
export function sandboxHostKey(keyPrefix: string, sandboxId: string): string {
  return `${keyPrefix}:sandbox:${sandboxId}:host`;
}

/** Present while the host's worker is alive (it refreshes the key's TTL). */
export function hostAliveKey(keyPrefix: string, hostId: string): string {
  return `${keyPrefix}:host:${hostId}:alive`;
}

/** Every host that ever registered: where a job may wait besides the shared queues. */
export function hostsKey(keyPrefix: string): string {
  return `${keyPrefix}:hosts`;
}

/** Where a thread's job goes: its live host, or the shared queue (`lostHost`: its sandbox's host is gone). */
export type ThreadRoute = { host: string } | { host: null; lostHost?: string };

// KEYS: the thread's sandbox key. ARGV: the key prefix. Returns {host, alive} or {} for no host record.
const ROUTE = `local id = redis.call('GET', KEYS[1])
if not id then return {} end
local host = redis.call('GET', ARGV[1] .. ':sandbox:' .. id .. ':host')
if not host then return {} end
return {host, redis.call('EXISTS', ARGV[1] .. ':host:' .. host .. ':alive')}`;

/** One round trip: the thread's sandbox → its host → alive? */
export async function routeThread(redis: Redis, keyPrefix: string, threadId: string): Promise<ThreadRoute> {
  const [host, alive] = (await redis.eval(ROUTE, 1, threadSandboxKey(keyPrefix, threadId), keyPrefix)) as [string?, number?];
  if (!host) return { host: null };
  return alive === 1 ? { host } : { host: null, lostHost: host };
}

/** The threads a job is for: an agent job's one, a teardown's list; none for a sweep. */
export function threadsOf(name: HostQueue, payload: object): string[] {
  const p = payload as { threadId?: unknown; threadIds?: unknown };
  if (name === "agent" && typeof p.threadId === "string") return [p.threadId];
  if (name === "cleanup" && Array.isArray(p.threadIds)) return p.threadIds.filter((t): t is string => typeof t === "string");
  return [];
}
