import { luaScript } from "../shared/lua-script.js";
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

// KEYS: keys that may name the job's thread (the first that holds one wins: a PR's originating thread).
// ARGV: the thread id otherwise, then the text around the id of each key read (a thread's sandbox, a sandbox's
// host, a host's liveness): the key functions above make them, so the script has no key format of its own.
// Returns {thread} or {thread, host, alive}.
const ROUTE = `local thread = ARGV[1]
for i = 1, #KEYS do
  local t = redis.call('GET', KEYS[i])
  if t then thread = t break end
end
local id = redis.call('GET', ARGV[2] .. thread .. ARGV[3])
if not id then return {thread} end
local host = redis.call('GET', ARGV[4] .. id .. ARGV[5])
if not host then return {thread} end
return {thread, host, redis.call('EXISTS', ARGV[6] .. host .. ARGV[7])}`;
const route = luaScript(ROUTE);

/** A key function's text before and after its id (ids never hold NUL). */
function around(key: (id: string) => string): [string, string] {
  const [head = "", tail = ""] = key("\0").split("\0");
  return [head, tail];
}

/**
 * One round trip on the webhook path: the job's thread (the first of `threadFrom` that holds one, else
 * `threadId`) → its sandbox → its host → alive? EVALSHA: the script's text is sent only when Redis
 * does not know it yet.
 */
export async function routeThread(redis: Redis, keyPrefix: string, threadId: string, threadFrom: readonly string[] = []): Promise<ThreadRoute & { threadId: string }> {
  const args = [
    ...threadFrom,
    threadId,
    ...around((thread) => threadSandboxKey(keyPrefix, thread)),
    ...around((sandbox) => sandboxHostKey(keyPrefix, sandbox)),
    ...around((host) => hostAliveKey(keyPrefix, host)),
  ];
  const reply = (await route(redis, threadFrom.length, ...args)) as [string, string?, number?];
  const [thread, host, alive] = reply;
  if (!host) return { threadId: thread, host: null };
  return alive === 1 ? { threadId: thread, host } : { threadId: thread, host: null, lostHost: host };
}

/** The threads a job is for: an agent job's one, a teardown's list; none for a sweep. */
export function threadsOf(name: HostQueue, payload: object): string[] {
  const p = payload as { threadId?: unknown; threadIds?: unknown };
  if (name === "agent" && typeof p.threadId === "string") return [p.threadId];
  if (name === "cleanup" && Array.isArray(p.threadIds)) return p.threadIds.filter((t): t is string => typeof t === "string");
  return [];
}
