import { lstat, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisNowMs } from "../shared/redis-time.js";
import { forgetIdleSandbox, isSandboxId, sandboxActivityKey, threadSandboxKey, touchThreadSandbox, type SandboxCache } from "./lifecycle.js";
import { unmountOrphanedSandboxMounts } from "./orphaned-mounts.js";
import { sandboxHostKey } from "../queue/host-routes.js";
import { LocalSandboxProvider } from "./providers/local.js";
import { idleCutoff, isOrphanSandbox, isUnusedBase } from "./sweep-decisions.js";
import type { SandboxProvider } from "./types.js";

export interface SweepOptions {
  redis: Redis;
  keyPrefix: string;
  provider: SandboxProvider;
  cache: SandboxCache;
  /** 0: idle sandboxes are kept. */
  idleTtlMs: number;
  orphanGraceMs: number;
  /** Where `bases/<repo>/<sha>` shared checkouts live (local provider). */
  mirrorRoot: string;
  /** This worker's host id (local sandboxes): sandboxes recorded on another host are that host's to sweep. */
  host?: string | undefined;
  log: Logger;
}

export interface SweepResult {
  idle: string[];
  orphans: string[];
  bases: string[];
}

/**
 * One pass of the lifecycle sweep (the `cleanup` queue's scheduled `sweep` job): destroys sandboxes
 * idle past the TTL (never one whose thread's run lock is held), sandboxes made for a thread but never
 * recorded, and shared checkouts no sandbox uses. One failure is logged and the pass goes on.
 */
export async function sweepSandboxes(opts: SweepOptions): Promise<SweepResult> {
  const { redis, keyPrefix, provider, log } = opts;
  const result: SweepResult = { idle: [], orphans: [], bases: [] };
  const now = await redisNowMs(redis);
  const cutoff = idleCutoff(now, opts.idleTtlMs);
  const recorded = new Set<string>();
  const activity = sandboxActivityKey(keyPrefix);

  const head = `${keyPrefix}:thread:`;
  const tail = ":sandbox";
  for await (const keys of redis.scanStream({ match: `${head}*${tail}`, count: 200 }) as AsyncIterable<string[]>) {
    for (const key of keys) {
      const threadId = key.startsWith(head) && key.endsWith(tail) ? key.slice(head.length, -tail.length) : "";
      const id = threadId ? await redis.get(key) : null;
      if (!threadId || id === null || !isSandboxId(id)) continue;
      recorded.add(id);
      if (opts.host !== undefined && !(await onThisHost(redis, keyPrefix, id, opts.host))) continue;
      // A sandbox from before activity was recorded: its idle time starts now.
      if ((await redis.zscore(activity, threadId)) === null) await redis.zadd(activity, "NX", now, threadId);
      if (cutoff === null) continue;
      const outcome = await forgetIdleSandbox(redis, keyPrefix, threadId, id, cutoff);
      if (outcome === "busy") await touchThreadSandbox(redis, keyPrefix, threadId);
      if (outcome !== "reaped") continue;
      recorded.delete(id);
      const cached = opts.cache.get(threadId);
      opts.cache.delete(threadId);
      await cached?.close().catch(() => undefined);
      try {
        await provider.destroy(id);
        result.idle.push(id);
        log.info({ threadId, sandbox: id }, "idle sandbox destroyed");
      } catch (err) {
        log.warn({ threadId, sandbox: id, err: String(err) }, "could not destroy an idle sandbox (forgotten; the orphan sweep retries)");
      }
    }
  }

  for (const info of await provider.list()) {
    if (!isOrphanSandbox(info, { prefix: keyPrefix, recorded, nowMs: Date.now(), graceMs: opts.orphanGraceMs })) continue;
    // Recorded since the scan (its creator was only slow)?
    if ((await redis.get(threadSandboxKey(keyPrefix, info.labels.thread ?? ""))) === info.id) continue;
    try {
      await provider.destroy(info.id);
      result.orphans.push(info.id);
      log.info({ threadId: info.labels.thread, sandbox: info.id }, "orphaned sandbox destroyed");
    } catch (err) {
      log.warn({ sandbox: info.id, err: String(err) }, "could not destroy an orphaned sandbox");
    }
  }

  if (provider instanceof LocalSandboxProvider) {
    for (const dir of await provider.unlisted()) {
      if (Date.now() - dir.mtimeMs <= opts.orphanGraceMs || recorded.has(dir.id)) continue;
      await provider.destroy(dir.id).then(
        () => result.orphans.push(dir.id),
        (err: unknown) => log.warn({ sandbox: dir.id, err: String(err) }, "could not remove a half-made sandbox directory"),
      );
    }
    result.bases = await sweepBaseCheckouts(provider, opts);
    const mounts = await unmountOrphanedSandboxMounts();
    if (mounts.length > 0) log.info({ count: mounts.length }, "mounts of deleted sandbox directories removed");
  }
  return result;
}

/** A sandbox with no host record (made before hosts were recorded) is any local worker's. */
async function onThisHost(redis: Redis, keyPrefix: string, sandboxId: string, host: string): Promise<boolean> {
  const recorded = await redis.get(sandboxHostKey(keyPrefix, sandboxId));
  return recorded === null || recorded === host;
}

async function sweepBaseCheckouts(provider: LocalSandboxProvider, opts: SweepOptions): Promise<string[]> {
  const root = join(opts.mirrorRoot, "bases");
  const inUse = await provider.overlayBases();
  const removed: string[] = [];
  for (const repo of await readdir(root).catch(() => [] as string[])) {
    const repoDir = join(root, repo);
    for (const name of await readdir(repoDir).catch(() => [] as string[])) {
      const path = resolve(repoDir, name);
      // lstat: a link in place of a checkout is never followed (and never a directory).
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isDirectory() || !isUnusedBase({ path, mtimeMs: info.mtimeMs }, { inUse, nowMs: Date.now(), graceMs: opts.orphanGraceMs })) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  if (removed.length > 0) opts.log.info({ count: removed.length }, "unused shared checkouts removed");
  return removed;
}
