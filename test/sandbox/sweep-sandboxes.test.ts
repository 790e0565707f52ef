import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { ensureSandboxForThread, sandboxActivityKey, teardownThreadSandbox, threadSandboxKey } from "../../src/sandbox/lifecycle.js";
import { LocalSandbox, LocalSandboxProvider } from "../../src/sandbox/providers/local.js";
import { sweepSandboxes, type SweepOptions } from "../../src/sandbox/sweep-sandboxes.js";
import { trySandboxDisk } from "../../src/sandbox/limits/workspace-disk.js";
import { ensureBaseCheckout } from "../../src/sandbox/workspace/base-checkout.js";
import { ensureMirror, resolveRef } from "../../src/sandbox/workspace/mirror.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const HOUR = 3_600_000;

describe("sweepSandboxes (local provider, real Redis)", () => {
  let root: string;
  let mirrorRoot: string;
  let provider: LocalSandboxProvider;
  let keyPrefix: string;
  let redis: ReturnType<typeof testRedis>;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-sweep-"));
    mirrorRoot = join(root, "mirrors");
    provider = new LocalSandboxProvider({ root: join(root, "sandboxes"), execTimeoutMs: 10_000, maxOutputBytes: 1 << 16 });
    keyPrefix = uniquePrefix();
    redis = testRedis();
  });
  afterEach(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  const sweep = (o: Partial<SweepOptions> = {}) =>
    sweepSandboxes({ redis, keyPrefix, provider, cache: new Map(), idleTtlMs: HOUR, orphanGraceMs: HOUR, mirrorRoot, log: createLogger("silent"), ...o });
  const ensure = async (threadId: string) => (await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId, provider, creationTimeoutMs: 10_000, cache: new Map() })).sandbox;
  const ids = async () => (await provider.list()).map((s) => s.id);

  it("destroys a sandbox idle past the TTL, never one whose run lock is held, and keeps recent ones", async () => {
    const [idle, locked, recent] = [randomUUID(), randomUUID(), randomUUID()];
    const sandboxes = { idle: await ensure(idle), locked: await ensure(locked), recent: await ensure(recent) };
    const longAgo = Date.now() - 2 * HOUR;
    await redis.zadd(sandboxActivityKey(keyPrefix), longAgo, idle, longAgo, locked);
    await new RunLocks(redis, keyPrefix, 60_000).acquire(locked, "job-1");

    const result = await sweep();
    expect(result.idle).toEqual([sandboxes.idle.id]);
    expect(await ids()).toEqual([sandboxes.locked.id, sandboxes.recent.id].sort());
    expect(await redis.get(threadSandboxKey(keyPrefix, idle))).toBe(`__expired__:${sandboxes.idle.id}`);
    expect(await redis.get(threadSandboxKey(keyPrefix, locked))).toBe(sandboxes.locked.id);
    // The held lock counts as activity: the locked thread's idle time starts again.
    expect(Number(await redis.zscore(sandboxActivityKey(keyPrefix), locked))).toBeGreaterThan(longAgo);

    // The next run on the idle thread gets a fresh sandbox and is told the old workspace went.
    const again = await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId: idle, provider, creationTimeoutMs: 10_000, cache: new Map() });
    expect(again).toMatchObject({ outcome: "recreated", workspaceLost: true, lostSandboxId: sandboxes.idle.id });
    expect(await redis.get(threadSandboxKey(keyPrefix, idle))).toBe(again.sandbox.id);
  });

  it("a host sweeps only the sandboxes recorded on it: another host's idle sandbox is left to that host", async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const onHost = async (t: string, host: string) =>
      (await ensureSandboxForThread({ repo: "octo/hello", redis, keyPrefix, threadId: t, provider, creationTimeoutMs: 10_000, cache: new Map(), host })).sandbox;
    const sandboxes = { mine: await onHost(mine, "h-aaaaaaaa"), theirs: await onHost(theirs, "h-bbbbbbbb") };
    const longAgo = Date.now() - 2 * HOUR;
    await redis.zadd(sandboxActivityKey(keyPrefix), longAgo, mine, longAgo, theirs);
    const result = await sweep({ host: "h-aaaaaaaa" });
    expect(result).toMatchObject({ idle: [sandboxes.mine.id], orphans: [] });
    expect(await redis.get(threadSandboxKey(keyPrefix, theirs))).toBe(sandboxes.theirs.id);
    expect(await ids()).toEqual([sandboxes.theirs.id]);
  });

  it("an idle TTL of 0 keeps idle sandboxes", async () => {
    const t = randomUUID();
    const sb = await ensure(t);
    await redis.zadd(sandboxActivityKey(keyPrefix), Date.now() - 100 * HOUR, t);
    expect((await sweep({ idleTtlMs: 0 })).idle).toEqual([]);
    expect(await ids()).toEqual([sb.id]);
  });

  it("destroys sandboxes made for one of our threads but never recorded, once past the grace", async () => {
    const recorded = await ensure(randomUUID());
    const orphan = await provider.create({ labels: { thread: randomUUID(), prefix: keyPrefix } });
    const otherDeployment = await provider.create({ labels: { thread: randomUUID(), prefix: "someone-else" } });
    const notAThread = await provider.create({ labels: { role: "preflight" } });

    expect((await sweep()).orphans).toEqual([]);
    expect(await ids()).toHaveLength(4);

    expect((await sweep({ orphanGraceMs: 0 })).orphans).toEqual([orphan.id]);
    expect(await ids()).toEqual([recorded.id, otherDeployment.id, notAThread.id].sort());
  });

  it("removes a sandbox directory its creator left without metadata, once past the grace", async () => {
    const kept = await ensure(randomUUID());
    const halfMade = join(root, "sandboxes", "local-00000000000000ab");
    await mkdir(halfMade, { recursive: true });
    // It died after mounting its capped disk (root worker), before writing meta.json.
    const disk = await trySandboxDisk(halfMade, 64);
    expect(disk).toBeDefined();
    await mkdir(join(disk!, "workspace"), { recursive: true });
    expect((await sweep()).orphans).toEqual([]);
    expect(existsSync(halfMade)).toBe(true);
    const past = new Date(Date.now() - 2 * HOUR);
    await utimes(halfMade, past, past);
    expect((await sweep()).orphans).toEqual(["local-00000000000000ab"]);
    expect(existsSync(halfMade)).toBe(false);
    expect(await readFile("/proc/self/mountinfo", "utf8")).not.toContain(halfMade);
    expect(await ids()).toEqual([kept.id]);
  });

  it("removes shared checkouts no sandbox mounts and none used within the grace", async () => {
    const bases = join(mirrorRoot, "bases", "app");
    const [mounted, old, fresh] = ["a".repeat(40), "b".repeat(40), "c".repeat(40)].map((sha) => join(bases, sha));
    for (const dir of [mounted!, old!, fresh!]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "README.md"), "base\n");
    }
    const sb = await ensure(randomUUID());
    if (!(sb instanceof LocalSandbox)) throw new Error("a local sandbox was expected");
    await sb.mountBase(mounted!);
    const past = new Date(Date.now() - 2 * HOUR);
    for (const dir of [mounted!, old!]) await utimes(dir, past, past);

    expect((await sweep()).bases).toEqual([old]);
    expect([existsSync(mounted!), existsSync(old!), existsSync(fresh!)]).toEqual([true, false, true]);
    expect((await sb.exec("cat README.md")).stdout).toBe("base\n");
  });

  it("a shared checkout asked for again is young again: the sweep keeps it", async () => {
    const remote = makeBareRemote("acme", "app");
    const mirror = await ensureMirror({ mirrorRoot, repo: "acme/app", remoteUrl: remote.bare });
    const sha = await resolveRef(mirror, "main");
    const opts = { mirrorRoot, mirror, sha, publicUrl: "https://github.com/acme/app.git" };
    const base = await ensureBaseCheckout(opts);
    const past = new Date(Date.now() - 2 * HOUR);
    await utimes(base, past, past);
    expect(await ensureBaseCheckout(opts)).toBe(base);
    expect((await stat(base)).mtimeMs).toBeGreaterThan(Date.now() - HOUR);
    expect((await sweep()).bases).toEqual([]);
    await rm(remote.root, { recursive: true, force: true });
  });

  it("closing the thread of an expired sandbox only forgets the marker", async () => {
    const t = randomUUID();
    const sb = await ensure(t);
    await redis.zadd(sandboxActivityKey(keyPrefix), Date.now() - 2 * HOUR, t);
    expect((await sweep()).idle).toEqual([sb.id]);
    expect(await teardownThreadSandbox({ redis, keyPrefix, threadId: t, provider })).toEqual({ sandboxId: null });
    expect(await redis.get(threadSandboxKey(keyPrefix, t))).toBeNull();
    // A second sweep finds nothing of it.
    expect(await sweep({ orphanGraceMs: 0 })).toEqual({ idle: [], orphans: [], bases: [] });
  });
});
