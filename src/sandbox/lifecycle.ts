import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { runLockKey } from "../store/keys.js";
import { SandboxError, isSandboxError, type CreateSandboxOptions, type Sandbox, type SandboxProvider } from "./types.js";
import { redisNowMs } from "../shared/redis-time.js";
import { sandboxHostKey, threadSandboxKey } from "../queue/host-routes.js";

/** Per-process handles by thread id; a cache only: Redis holds the truth. */
export type SandboxCache = Map<string, Sandbox>;

export interface EnsureSandboxOptions {
  redis: Redis;
  keyPrefix: string;
  threadId: string;
  /** `owner/name`: the sandbox records it at creation and is never reused for another one. */
  repo: string;
  provider: SandboxProvider;
  log?: Logger;
  /** A creation sentinel older than this is treated as abandoned (its worker died). */
  creationTimeoutMs: number;
  cache: SandboxCache;
  createOptions?: CreateSandboxOptions;
  pollIntervalMs?: number;
  /** This worker's host id (local sandboxes): recorded with each sandbox it makes, so the thread's jobs come here. */
  host?: string | undefined;
}

export interface EnsureSandboxResult {
  sandbox: Sandbox;
  /** `replaced`: the thread's sandbox was made for another repository (or recorded none): destroyed, a new one made. */
  outcome: "cached" | "created" | "reconnected" | "recreated" | "replaced";
  /** The thread had a sandbox that is gone: its workspace was lost and the run must say so. */
  workspaceLost: boolean;
  lostSandboxId?: string;
  /** `read_only`: the old sandbox's filesystem had gone read-only, so it was destroyed and replaced. */
  lostReason?: "gone" | "read_only";
}

const SENTINEL = "__creating__";
/** What the idle sweep leaves in place of a sandbox it destroyed: the next run is told the workspace went. */
const EXPIRED = "__expired__";
const EXPIRED_TTL_SECONDS = 90 * 86400;

/** The id of the sandbox the idle sweep destroyed, or undefined when the value is not such a marker. */
export function parseExpired(v: string): string | undefined {
  return v.startsWith(`${EXPIRED}:`) ? v.slice(EXPIRED.length + 1) : undefined;
}

/** A live sandbox id (not a creation sentinel, not an expiry marker). */
export function isSandboxId(v: string): boolean {
  return parseSentinel(v) === undefined && parseExpired(v) === undefined;
}

/** A sorted set: thread id → when a run last held (or was seen holding) its sandbox, Redis time in ms. */
export function sandboxActivityKey(keyPrefix: string): string {
  return `${keyPrefix}:sandbox:lastrun`;
}

const TOUCH = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2]) end return 0`;

/** Marks the thread's sandbox (if it has one) as used now; the idle sweep measures from here. */
export async function touchThreadSandbox(redis: Redis, keyPrefix: string, threadId: string): Promise<void> {
  await redis.eval(TOUCH, 2, threadSandboxKey(keyPrefix, threadId), sandboxActivityKey(keyPrefix), String(await redisNowMs(redis)), threadId);
}

export { threadSandboxKey };

/** The repository a sandbox was made for, written before its id is published to its thread. */
export function sandboxRepoKey(keyPrefix: string, sandboxId: string): string {
  return `${keyPrefix}:sandbox:${sandboxId}:repo`;
}

const REPO_TTL_SECONDS = 90 * 86400;

/** May a sandbox recorded for `recorded` serve a run on `wanted`? Only the very same repository (pure). */
export function sandboxServes(recorded: string | null, wanted: string): boolean {
  return recorded !== null && recorded === wanted.toLowerCase();
}

// Compare-and-set: replace (or delete, when ARGV[2] is empty) only if the value is still ARGV[1].
const CAS = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2]) end
  return 1
end
return 0`;

async function cas(redis: Redis, key: string, expected: string, next: string | null): Promise<boolean> {
  return (await redis.eval(CAS, 1, key, expected, next ?? "")) === 1;
}

/** The creation time in a creation sentinel, or undefined for a sandbox id. */
export function parseSentinel(v: string): number | undefined {
  if (!v.startsWith(`${SENTINEL}:`)) return undefined;
  const ts = Number(v.split(":")[1]);
  return Number.isFinite(ts) ? ts : 0;
}

/**
 * Returns the thread's sandbox, safe across processes: (1) a cached handle that still answers;
 * (2) another worker is creating one → wait for its id (a sentinel older than the creation timeout
 * is stale → take over); (3) none → set the sentinel atomically, create, persist the id (clear the
 * sentinel on failure); (4) an id but no cache → reconnect, or recreate and report the lost workspace.
 */
export async function ensureSandboxForThread(opts: EnsureSandboxOptions): Promise<EnsureSandboxResult> {
  const result = await ensureSandbox(opts);
  await touchThreadSandbox(opts.redis, opts.keyPrefix, opts.threadId);
  return result;
}

async function ensureSandbox(opts: EnsureSandboxOptions): Promise<EnsureSandboxResult> {
  const { redis, threadId, provider, cache, creationTimeoutMs } = opts;
  const key = threadSandboxKey(opts.keyPrefix, threadId);
  const repo = opts.repo.toLowerCase();
  const poll = opts.pollIntervalMs ?? 100;
  let lost: string | undefined;

  /** The recorded repository of `id` is this run's (its record's lifetime renewed); otherwise logged. */
  const servesThisRepo = async (id: string): Promise<boolean> => {
    const repoKey = sandboxRepoKey(opts.keyPrefix, id);
    const recorded = await redis.get(repoKey);
    if (sandboxServes(recorded, repo)) {
      await redis.expire(repoKey, REPO_TTL_SECONDS);
      await redis.expire(sandboxHostKey(opts.keyPrefix, id), REPO_TTL_SECONDS);
      return true;
    }
    opts.log?.warn({ sandbox: id, threadId, recorded, repo }, "the thread's sandbox was made for another repository (or records none): destroying it and making a new one");
    return false;
  };
  /** Replace a live sandbox of another repository; undefined when someone else changed the key first. */
  const replace = async (id: string): Promise<EnsureSandboxResult | undefined> => {
    const mine = await sentinel(redis);
    if (!(await cas(redis, key, id, mine))) return undefined;
    await provider.destroy(id).catch((err: unknown) => opts.log?.warn({ sandbox: id, err: String(err) }, "could not destroy the other repository's sandbox"));
    await redis.del(sandboxRepoKey(opts.keyPrefix, id), sandboxHostKey(opts.keyPrefix, id));
    const made = await createAndPersist(mine, undefined);
    return made && { ...made, outcome: "replaced" };
  };

  const cached = cache.get(threadId);
  if (cached) {
    cache.delete(threadId);
    const alive = await cached.ping();
    const current = await redis.get(key);
    if (alive && current === cached.id && (await servesThisRepo(cached.id))) {
      if (await readOnly(cached)) return await replaceReadOnly(cached);
      cache.set(threadId, cached);
      return { sandbox: cached, outcome: "cached", workspaceLost: false };
    }
    await cached.close();
    if (alive && current === cached.id) {
      const made = await replace(current);
      if (made) return made;
    } else if (!alive && current === cached.id) {
      const mine = await sentinel(redis);
      if (await cas(redis, key, current, mine)) {
        await provider.destroy(current).catch(() => undefined);
        const made = await createAndPersist(mine, current);
        if (made) return made;
      }
    }
  }

  const waitUntil = Date.now() + creationTimeoutMs * 2;
  for (;;) {
    const value = await redis.get(key);
    if (value === null) {
      const mine = await sentinel(redis);
      if ((await redis.set(key, mine, "NX")) === "OK") {
        const made = await createAndPersist(mine, lost);
        if (made) return made;
      }
      continue;
    }
    const expired = parseExpired(value);
    if (expired !== undefined) {
      const mine = await sentinel(redis);
      if (await cas(redis, key, value, mine)) {
        const made = await createAndPersist(mine, expired);
        if (made) return made;
      }
      continue;
    }
    const startedAt = parseSentinel(value);
    if (startedAt !== undefined) {
      if ((await redisNowMs(redis)) - startedAt > creationTimeoutMs) {
        const mine = await sentinel(redis);
        if (await cas(redis, key, value, mine)) {
          const made = await createAndPersist(mine, lost);
          if (made) return made;
        }
        continue;
      }
      if (Date.now() > waitUntil) throw new SandboxError("timeout", `gave up waiting for another worker to create the sandbox of thread ${threadId}`);
      await new Promise((r) => setTimeout(r, poll));
      continue;
    }
    if (!(await servesThisRepo(value))) {
      const made = await replace(value);
      if (made) return made;
      continue;
    }
    try {
      const sandbox = await provider.connect(value);
      if (await readOnly(sandbox)) return await replaceReadOnly(sandbox);
      cache.set(threadId, sandbox);
      return { sandbox, outcome: "reconnected", workspaceLost: false };
    } catch (err) {
      if (!isSandboxError(err, "not_found")) throw err;
      const mine = await sentinel(redis);
      if (await cas(redis, key, value, mine)) {
        const made = await createAndPersist(mine, value);
        if (made) return made;
      }
    }
  }

  async function readOnly(sandbox: Sandbox): Promise<boolean> {
    if (!sandbox.writable || (await sandbox.writable())) return false;
    opts.log?.warn({ sandbox: sandbox.id, threadId }, "the thread's sandbox filesystem went read-only (EROFS): destroying it and making a new one");
    return true;
  }

  /** A sandbox whose disk went read-only is of no use to any run: replaced, the run told its workspace was lost. */
  async function replaceReadOnly(broken: Sandbox): Promise<EnsureSandboxResult> {
    await broken.close();
    const mine = await sentinel(redis);
    if (!(await cas(redis, key, broken.id, mine))) return ensureSandbox(opts);
    await provider.destroy(broken.id).catch((err: unknown) => opts.log?.warn({ sandbox: broken.id, err: String(err) }, "could not destroy the read-only sandbox"));
    await redis.del(sandboxRepoKey(opts.keyPrefix, broken.id), sandboxHostKey(opts.keyPrefix, broken.id));
    const made = await createAndPersist(mine, broken.id);
    return made ? { ...made, lostReason: "read_only" } : ensureSandbox(opts);
  }

  async function sentinel(r: Redis): Promise<string> {
    return `${SENTINEL}:${await redisNowMs(r)}:${randomBytes(6).toString("hex")}`;
  }

  /** undefined when our sentinel was taken over meanwhile (we were too slow): the caller loops. */
  async function createAndPersist(mine: string, lostId: string | undefined): Promise<EnsureSandboxResult | undefined> {
    let sandbox: Sandbox;
    try {
      // `prefix` tells the orphan sweep which deployment made it (several may share a vendor account).
      sandbox = await provider.create({ ...opts.createOptions, labels: { ...opts.createOptions?.labels, thread: threadId, repo, prefix: opts.keyPrefix } });
    } catch (err) {
      // Put back what we replaced, so the next attempt still reports the lost workspace.
      await cas(redis, key, mine, lostId ?? null);
      throw err;
    }
    // Recorded before the id is published: nobody can find the sandbox without its repository.
    await redis.set(sandboxRepoKey(opts.keyPrefix, sandbox.id), repo, "EX", REPO_TTL_SECONDS);
    if (opts.host) await redis.set(sandboxHostKey(opts.keyPrefix, sandbox.id), opts.host, "EX", REPO_TTL_SECONDS);
    if (!(await cas(redis, key, mine, sandbox.id))) {
      await provider.destroy(sandbox.id).catch(() => undefined);
      await redis.del(sandboxRepoKey(opts.keyPrefix, sandbox.id), sandboxHostKey(opts.keyPrefix, sandbox.id));
      lost = lostId;
      return undefined;
    }
    cache.set(threadId, sandbox);
    return lostId ? { sandbox, outcome: "recreated", workspaceLost: true, lostSandboxId: lostId, lostReason: "gone" } : { sandbox, outcome: "created", workspaceLost: false };
  }
}

export interface TeardownOptions {
  redis: Redis;
  keyPrefix: string;
  threadId: string;
  provider: SandboxProvider;
  cache?: SandboxCache;
  /** This worker's host id: a sandbox recorded on another host is forgotten here, never said destroyed. */
  host?: string | undefined;
}

/**
 * For cleanup jobs (PR closed): destroys the thread's sandbox and forgets it. Idempotent. A sandbox on
 * another host (its host was gone when the teardown was routed) is only forgotten: `sandboxId` null,
 * `forgotten` its id; that host's own sweep removes it from its disk as an orphan.
 */
export async function teardownThreadSandbox(opts: TeardownOptions): Promise<{ sandboxId: string | null; forgotten?: string }> {
  const key = threadSandboxKey(opts.keyPrefix, opts.threadId);
  const cached = opts.cache?.get(opts.threadId);
  opts.cache?.delete(opts.threadId);
  await cached?.close();
  const value = await opts.redis.get(key);
  if (value === null) return { sandboxId: null };
  const isId = isSandboxId(value);
  const host = isId ? await opts.redis.get(sandboxHostKey(opts.keyPrefix, value)) : null;
  const elsewhere = host !== null && host !== opts.host;
  if (isId && !elsewhere) await opts.provider.destroy(value);
  if (isId) await opts.redis.del(sandboxRepoKey(opts.keyPrefix, value), sandboxHostKey(opts.keyPrefix, value));
  // Deleting a creation sentinel makes the creating worker discard what it made.
  await cas(opts.redis, key, value, null);
  await opts.redis.zrem(sandboxActivityKey(opts.keyPrefix), opts.threadId);
  return elsewhere ? { sandboxId: null, forgotten: value } : { sandboxId: isId ? value : null };
}

// KEYS: the thread's sandbox key, its run lock, the activity set. ARGV: the sandbox id seen, thread id,
// the cutoff (ms), the expiry marker and its lifetime (s). One script, so a run cannot take the lock between the check and the forgetting.
const REAP_IDLE = `if redis.call('EXISTS', KEYS[2]) == 1 then return 'busy' end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'changed' end
local seen = redis.call('ZSCORE', KEYS[3], ARGV[2])
if seen and tonumber(seen) > tonumber(ARGV[3]) then return 'recent' end
redis.call('SET', KEYS[1], ARGV[4], 'EX', ARGV[5])
redis.call('ZREM', KEYS[3], ARGV[2])
return 'reaped'`;

export type ReapOutcome = "busy" | "changed" | "recent" | "reaped";

/**
 * Forgets the thread's sandbox `sandboxId` if no run holds the thread's lock and none used it after
 * `cutoffMs`; the caller then destroys it. A run that starts afterwards makes a fresh one and reports
 * the workspace lost (an expiry marker stands in the key meanwhile).
 */
export async function forgetIdleSandbox(redis: Redis, keyPrefix: string, threadId: string, sandboxId: string, cutoffMs: number): Promise<ReapOutcome> {
  const keys = [threadSandboxKey(keyPrefix, threadId), runLockKey(keyPrefix, threadId), sandboxActivityKey(keyPrefix)];
  const marker = `${EXPIRED}:${sandboxId}`;
  return (await redis.eval(REAP_IDLE, keys.length, ...keys, sandboxId, threadId, String(cutoffMs), marker, String(EXPIRED_TTL_SECONDS))) as ReapOutcome;
}
