import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureSandboxForThread, sandboxRepoKey, teardownThreadSandbox, threadSandboxKey, type SandboxCache } from "../../src/sandbox/lifecycle.js";
import { sandboxHostKey } from "../../src/queue/host-routes.js";
import { LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { SandboxError, isSandboxError, type CreateSandboxOptions, type SandboxProvider } from "../../src/sandbox/types.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

/** The real local provider, counting creates and optionally slowing or failing them. */
function instrumented(inner: LocalSandboxProvider, createDelayMs = 0) {
  const stats = { creates: 0, failNext: false };
  const provider: SandboxProvider = {
    type: "local",
    async create(o?: CreateSandboxOptions) {
      stats.creates += 1;
      await new Promise((r) => setTimeout(r, createDelayMs));
      if (stats.failNext) {
        stats.failNext = false;
        throw new SandboxError("quota", "no capacity");
      }
      return inner.create(o);
    },
    connect: (id) => inner.connect(id),
    destroy: (id) => inner.destroy(id),
    list: () => inner.list(),
  };
  return { provider, stats };
}

describe("ensureSandboxForThread", () => {
  let root: string;
  let local: LocalSandboxProvider;
  let keyPrefix: string;
  const threadId = "thread-1";

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-life-"));
    local = new LocalSandboxProvider({ root, execTimeoutMs: 10_000, maxOutputBytes: 1 << 16 });
    keyPrefix = uniquePrefix();
  });
  afterEach(async () => {
    for (const s of await local.list()) await local.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("two workers racing on one thread over two Redis connections end with ONE sandbox", async () => {
    const { provider, stats } = instrumented(local, 150);
    const [a, b] = await Promise.all([
      ensureSandboxForThread({ repo: "octo/hello", redis: testRedis(), keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map(), pollIntervalMs: 20 }),
      ensureSandboxForThread({ repo: "octo/hello", redis: testRedis(), keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map(), pollIntervalMs: 20 }),
    ]);
    expect(stats.creates).toBe(1);
    expect(a.sandbox.id).toBe(b.sandbox.id);
    expect([a.outcome, b.outcome].sort()).toEqual(["created", "reconnected"]);
    expect(await local.list()).toHaveLength(1);
    expect(await testRedis().get(threadSandboxKey(keyPrefix, threadId))).toBe(a.sandbox.id);
  });

  it("uses the cached handle while it answers, and reconnects by id from a fresh process", async () => {
    const { provider, stats } = instrumented(local);
    const redis = testRedis();
    const cache: SandboxCache = new Map();
    const first = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    await first.sandbox.exec("echo kept > f");
    const again = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    expect(again.outcome).toBe("cached");
    expect(again.sandbox).toBe(first.sandbox);
    const restarted = await ensureSandboxForThread({ repo: "octo/hello", redis: testRedis(), keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    expect(restarted).toMatchObject({ outcome: "reconnected", workspaceLost: false });
    expect((await restarted.sandbox.exec("cat f")).stdout).toBe("kept\n");
    expect(stats.creates).toBe(1);
  });

  it("recreates a sandbox that is gone and records that the workspace was lost", async () => {
    const { provider } = instrumented(local);
    const redis = testRedis();
    const first = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    await local.destroy(first.sandbox.id);
    const next = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    expect(next).toMatchObject({ outcome: "recreated", workspaceLost: true, lostSandboxId: first.sandbox.id });
    expect(next.sandbox.id).not.toBe(first.sandbox.id);
    expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBe(next.sandbox.id);
  });

  it("keeps reporting the lost workspace when the replacement's creation fails once", async () => {
    const { provider, stats } = instrumented(local);
    const redis = testRedis();
    const first = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    await local.destroy(first.sandbox.id);
    stats.failNext = true;
    await expect(ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() })).rejects.toThrow("no capacity");
    expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBe(first.sandbox.id);
    const next = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    expect(next).toMatchObject({ outcome: "recreated", workspaceLost: true, lostSandboxId: first.sandbox.id });
  });

  it("recreates when the cached sandbox stops answering", async () => {
    const { provider } = instrumented(local);
    const redis = testRedis();
    const cache: SandboxCache = new Map();
    const first = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    await rm(join(root, first.sandbox.id, "workspace"), { recursive: true });
    const next = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    expect(next).toMatchObject({ outcome: "recreated", workspaceLost: true, lostSandboxId: first.sandbox.id });
    expect((await local.list()).map((s) => s.id)).toEqual([next.sandbox.id]);
  });

  it("takes over a stale sentinel left by a dead worker, and waits on a fresh one", async () => {
    const { provider, stats } = instrumented(local);
    const redis = testRedis();
    const key = threadSandboxKey(keyPrefix, threadId);
    const [s] = await redis.time();
    await redis.set(key, `__creating__:${Number(s) * 1000 - 60_000}:deadbeef`);
    const took = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() });
    expect(took.outcome).toBe("created");
    expect(stats.creates).toBe(1);

    const other = "thread-2";
    const otherKey = threadSandboxKey(keyPrefix, other);
    await redis.set(otherKey, `__creating__:${Number(s) * 1000}:alive`);
    const waiting = ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId: other, provider, creationTimeoutMs: 5_000, cache: new Map(), pollIntervalMs: 20 });
    await new Promise((r) => setTimeout(r, 150));
    expect(stats.creates).toBe(1);
    const made = await local.create();
    // What the creating worker does: the repository first, then the id.
    await redis.set(sandboxRepoKey(keyPrefix, made.id), "octo/hello");
    await redis.set(otherKey, made.id);
    expect(await waiting).toMatchObject({ outcome: "reconnected" });
    expect((await waiting).sandbox.id).toBe(made.id);
  });

  it("clears its sentinel when creation fails, so the next attempt can create", async () => {
    const { provider, stats } = instrumented(local);
    const redis = testRedis();
    stats.failNext = true;
    await expect(ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() })).rejects.toSatisfy((e: unknown) =>
      isSandboxError(e, "quota"),
    );
    expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBeNull();
    expect((await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map() })).outcome).toBe("created");
  });

  it("teardown destroys the sandbox and forgets it (idempotent)", async () => {
    const { provider } = instrumented(local);
    const redis = testRedis();
    const cache: SandboxCache = new Map();
    const made = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    expect(await teardownThreadSandbox({ redis, keyPrefix, threadId, provider, cache })).toEqual({ sandboxId: made.sandbox.id });
    expect(cache.size).toBe(0);
    expect(await local.list()).toEqual([]);
    expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBeNull();
    expect(await teardownThreadSandbox({ redis, keyPrefix, threadId, provider, cache })).toEqual({ sandboxId: null });
  });

  it("records the host a sandbox is made on; a teardown on another host forgets it and never says it destroyed it", async () => {
    const { provider } = instrumented(local);
    const redis = testRedis();
    const made = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map(), host: "h-aaaaaaaa" });
    expect(await redis.get(sandboxHostKey(keyPrefix, made.sandbox.id))).toBe("h-aaaaaaaa");
    expect(await teardownThreadSandbox({ redis, keyPrefix, threadId, provider, host: "h-bbbbbbbb" })).toEqual({ sandboxId: null, forgotten: made.sandbox.id });
    // Still on its host's disk (that host's orphan sweep removes it); no longer any thread's.
    expect((await local.list()).map((s) => s.id)).toEqual([made.sandbox.id]);
    expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBeNull();
    expect(await redis.get(sandboxHostKey(keyPrefix, made.sandbox.id))).toBeNull();
  });

  it("a teardown on the sandbox's own host destroys it", async () => {
    const { provider } = instrumented(local);
    const redis = testRedis();
    const made = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache: new Map(), host: "h-aaaaaaaa" });
    expect(await teardownThreadSandbox({ redis, keyPrefix, threadId, provider, host: "h-aaaaaaaa" })).toEqual({ sandboxId: made.sandbox.id });
    expect(await local.list()).toEqual([]);
  });

  it("a sandbox whose filesystem went read-only (EROFS) is replaced, and the run is told why its workspace was lost", async () => {
    const { provider, stats } = instrumented(local);
    const redis = testRedis();
    const cache: SandboxCache = new Map();
    const made = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
    const ws = (made.sandbox as unknown as { hostWorkspace: string }).hostWorkspace;
    // The kernel's read-only remount, as an ext4 disk image does when its journal aborts.
    execFileSync("mount", ["--bind", ws, ws]);
    execFileSync("mount", ["-o", "remount,bind,ro", ws]);
    try {
      expect(await made.sandbox.writable!()).toBe(false);
      const next = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 5_000, cache });
      expect(next).toMatchObject({ outcome: "recreated", workspaceLost: true, lostSandboxId: made.sandbox.id, lostReason: "read_only" });
      expect(stats.creates).toBe(2);
      expect(await redis.get(threadSandboxKey(keyPrefix, threadId))).toBe(next.sandbox.id);
      expect(await next.sandbox.writable!()).toBe(true);
    } finally {
      // The replaced sandbox's destroy already took its mounts down; this is for a failed assertion.
      try {
        execFileSync("umount", ["-l", ws], { stdio: "ignore" });
      } catch {}
    }
  });
});
