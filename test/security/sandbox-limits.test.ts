import { existsSync, statSync } from "node:fs";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../../src/config/sandbox-config.js";
import { chown, mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSandboxConfig } from "../../src/config/sandbox-config.js";
import { detectCgroups } from "../../src/sandbox/limits/cgroup.js";
import { limitRuntime } from "../../src/sandbox/limits/sandbox-limits.js";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";

const root0 = process.getuid?.() === 0;

/** A pool of sandboxes under tight limits, so each attack is fast; defaults are checked separately. */
function limits(over: Partial<SandboxLimits> = {}): SandboxLimits {
  return { ...DEFAULT_SANDBOX_LIMITS, memoryMb: 512, pids: 64, cpus: 1, tmpMb: 64, diskMb: 0, ...over };
}

async function stillServing(provider: LocalSandboxProvider): Promise<void> {
  const other = await provider.create({ network: false });
  try {
    const r = await other.exec("echo ok", { timeoutMs: 10_000 });
    expect(r).toMatchObject({ exitCode: 0, stdout: "ok\n", timedOut: false });
  } finally {
    await provider.destroy(other.id);
  }
}

describe("sandbox limit settings", () => {
  it("defaults fit four sandboxes on a 2-core / 8 GiB worker and every value is settable", () => {
    const d = readSandboxConfig({}).limits;
    expect(d).toEqual({ mode: "auto", memoryMb: 1536, pids: 512, cpus: 1, tmpMb: 512, diskMb: 8192 });
    expect(4 * d.memoryMb).toBeLessThanOrEqual(6 * 1024);
    const c = readSandboxConfig({
      SANDBOX_LIMITS: "rlimit",
      SANDBOX_MEMORY_MB: "2048",
      SANDBOX_PIDS: "100",
      SANDBOX_CPUS: "0.5",
      SANDBOX_TMP_MB: "128",
      SANDBOX_DISK_MB: "0",
      SANDBOX_CGROUP_PARENT: "/open-swe.slice",
    }).limits;
    expect(c).toEqual({ mode: "rlimit", memoryMb: 2048, pids: 100, cpus: 0.5, tmpMb: 128, diskMb: 0, cgroupParent: "/open-swe.slice" });
    expect(() => readSandboxConfig({ SANDBOX_LIMITS: "none" })).toThrow(/SANDBOX_LIMITS/);
    expect(() => readSandboxConfig({ SANDBOX_CPUS: "0" })).toThrow(/SANDBOX_CPUS/);
    expect(() => readSandboxConfig({ SANDBOX_CGROUP_PARENT: "relative" })).toThrow(/SANDBOX_CGROUP_PARENT/);
  });
});

describe("cgroup detection", () => {
  let fake: string;
  beforeAll(async () => {
    fake = await mkdtemp(join(tmpdir(), "osw-cgfake-"));
  });
  afterAll(() => rm(fake, { recursive: true, force: true }));

  async function fakeProc(controllers: string, ownPath: string): Promise<string> {
    const proc = join(fake, `proc-${Math.random().toString(16).slice(2)}`);
    const mnt = join(proc, "cgroup2");
    await mkdir(join(mnt, ownPath), { recursive: true });
    await writeFile(join(mnt, "cgroup.controllers"), controllers);
    await writeFile(join(mnt, "cgroup.subtree_control"), "");
    await writeFile(join(proc, "mountinfo"), `30 23 0:26 / ${mnt} rw,nosuid - cgroup2 cgroup2 rw\n`);
    await writeFile(join(proc, "cgroup"), `0::${ownPath}\n`);
    return proc;
  }

  it("v2: sandboxes go under <own cgroup>/open-swe with the controllers enabled down the chain", async () => {
    const proc = await fakeProc("cpuset cpu io memory pids", "/worker.service");
    const r = await detectCgroups(undefined, proc);
    expect(r).toEqual({
      ok: true,
      setup: {
        version: 2,
        parents: { memory: join(proc, "cgroup2/worker.service/open-swe"), pids: join(proc, "cgroup2/worker.service/open-swe"), cpu: join(proc, "cgroup2/worker.service/open-swe") },
      },
    });
    expect(await readFile(join(proc, "cgroup2/worker.service/cgroup.subtree_control"), "utf8")).toBe("+memory +pids +cpu");
  });

  it("v2 without the pids controller falls back with the reason", async () => {
    const proc = await fakeProc("cpu memory", "/");
    expect(await detectCgroups(undefined, proc)).toEqual({ ok: false, reason: expect.stringMatching(/lacks the pids controller/) });
  });

  it.runIf(root0)("this machine: cgroups are used (root), nested under the worker's own memory cgroup", async () => {
    const rt = await limitRuntime(limits());
    expect(rt.kind).toBe("cgroup");
    const own = /:memory:(.*)/.exec(await readFile("/proc/self/cgroup", "utf8"))?.[1];
    if (rt.kind === "cgroup") expect(rt.setup.parents.memory).toBe(join("/sys/fs/cgroup/memory", own ?? "", "open-swe"));
  });
});

describe.runIf(root0)("hard limits under cgroups (attacks from inside a real sandbox)", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-limits-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 60_000, maxOutputBytes: 1 << 16, limits: limits({ diskMb: 64 }) });
    sb = await provider.create({ network: false });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("a 3 GiB allocation is killed at the memory cap and reported", async () => {
    const r = await sb.exec("head -c 3G /dev/zero | tail > /dev/null");
    expect(r.exitCode).not.toBe(0);
    expect(r.limit).toEqual({ kind: "memory", message: "memory limit (512 MiB) reached: a process was killed" });
    expect(r.stderr).toContain("open-swe: memory limit (512 MiB) reached");
    await stillServing(provider);
  });

  it("a sandbox whose idle cgroup was swept (e.g. by another worker) gets it back, limits and all", async () => {
    const rt = await limitRuntime(limits());
    if (rt.kind !== "cgroup") throw new Error("expected cgroups");
    // Idle: no command server either (a closed handle stops it; its processes leave the cgroup as they die).
    await sb.close();
    sb = await provider.connect(sb.id);
    for (const c of ["memory", "pids", "cpu"] as const) {
      const dir = join(rt.setup.parents[c], sb.id);
      for (let i = 0; ; i++) {
        const err = await rmdir(dir).then(
          () => undefined,
          (e: NodeJS.ErrnoException) => e,
        );
        if (!err) break;
        if (err.code !== "EBUSY" || i > 100) throw err;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const r = await sb.exec("head -c 3G /dev/zero | tail > /dev/null");
    expect(r.limit?.kind).toBe("memory");
  });

  it("a 3 GiB file in /tmp or /dev/shm is refused at the tmpfs size", async () => {
    const r = await sb.exec("head -c 3G /dev/zero > /tmp/big; echo tmp=$?; ls -l /tmp/big | cut -d' ' -f5; head -c 3G /dev/zero > /dev/shm/big; echo shm=$?");
    expect(r.stdout).toMatch(/^tmp=1$/m);
    expect(r.stdout).toMatch(/^shm=1$/m);
    expect(Number(r.stdout.split("\n")[1])).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(r.stderr).toContain("No space left on device");
    await stillServing(provider);
  });

  it("a fork bomb stops at the process cap, is ended before its timeout, and others keep running", async () => {
    const bomb = sb.exec("bomb() { bomb | bomb & }; bomb; sleep 50", { timeoutMs: 55_000 });
    // While it runs, another sandbox answers.
    await stillServing(provider);
    const r = await bomb;
    expect(r.limit).toEqual({ kind: "processes", message: "process limit (64) reached: the command was stopped" });
    // Ended by us (137) or by its own shell failing to fork; either way well before its 55 s timeout.
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("open-swe: process limit (64) reached");
    const rt = await limitRuntime(limits());
    if (rt.kind === "cgroup") expect(Number(await readFile(join(rt.setup.parents.pids, sb.id, "pids.peak"), "utf8"))).toBeLessThanOrEqual(64);
    await stillServing(provider);
  });

  it("the process count inside never passes the cap", async () => {
    const r = await sb.exec("for i in $(seq 100); do sleep 5 & done 2>/dev/null; ls /proc | grep -c '^[0-9]'; kill $(jobs -p) 2>/dev/null; true");
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(64);
    expect(r.limit?.kind).toBe("processes");
  });

  it("CPU: the sandbox is held to its share (the kernel throttles a busy loop)", async () => {
    const cpuProvider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1 << 16, limits: limits({ cpus: 0.2 }) });
    const s = await cpuProvider.create({ network: false });
    try {
      await s.exec("timeout 1 sh -c 'while :; do :; done'; true");
      const rt = await limitRuntime(limits());
      if (rt.kind !== "cgroup") throw new Error("expected cgroups");
      const dir = join(rt.setup.parents.cpu, s.id);
      expect((await readFile(join(dir, "cpu.cfs_quota_us"), "utf8")).trim()).toBe("20000");
      expect(Number(/nr_throttled (\d+)/.exec(await readFile(join(dir, "cpu.stat"), "utf8"))?.[1])).toBeGreaterThan(0);
    } finally {
      await cpuProvider.destroy(s.id);
    }
  });

  it("filling the workspace stops at the disk cap with a clear error", async () => {
    const r = await sb.exec("head -c 200M /dev/zero > fill.bin; echo rc=$?; du -m fill.bin | cut -f1");
    expect(r.stdout).toMatch(/^rc=1$/m);
    expect(Number(r.stdout.split("\n")[1])).toBeLessThanOrEqual(64);
    expect(r.limit).toEqual({ kind: "disk", message: "workspace disk limit (64 MiB) reached: free space by deleting files (build outputs, caches)" });
    expect(r.exitCode).not.toBe(0);
    // Deleting frees it again: the next command is clean.
    const after = await sb.exec("rm fill.bin && echo freed");
    expect(after).toMatchObject({ exitCode: 0, stdout: "freed\n" });
    expect(after.limit).toBeUndefined();
    await stillServing(provider);
  });

  it("the capped disk is nosuid,nodev and goes away with the sandbox", async () => {
    const s = await provider.create({ network: false });
    const mount = join(root, s.id, "disk");
    const line = (await readFile("/proc/self/mountinfo", "utf8")).split("\n").find((l) => l.split(" ")[4] === mount);
    expect(line).toMatch(/nosuid/);
    expect(line).toMatch(/nodev/);
    // The sandbox reaches its workspace through its own (nosuid) view, on the capped disk.
    expect(statSync(s.hostWorkspace).dev).toBe(statSync(join(mount, "workspace")).dev);
    expect(statSync(s.hostWorkspace).dev).not.toBe(statSync(root).dev);
    await provider.destroy(s.id);
    expect((await readFile("/proc/self/mountinfo", "utf8")).includes(mount)).toBe(false);
    expect(existsSync(join(root, s.id))).toBe(false);
  });

  it("with a base mounted (overlay), the upper layer is on the capped disk and the base stays untouched", async () => {
    const lower = await mkdtemp(join(root, "base-"));
    await writeFile(join(lower, "README.md"), "base\n");
    const s = await provider.create({ network: false });
    await s.mountBase(lower);
    const r = await s.exec("cat README.md && head -c 200M /dev/zero > fill.bin; echo rc=$?");
    expect(r.stdout).toMatch(/^base\nrc=1$/m);
    expect(r.limit?.kind).toBe("disk");
    expect(existsSync(join(lower, "fill.bin"))).toBe(false);
    expect(existsSync(join(root, s.id, "disk", "upper", "fill.bin"))).toBe(true);
    await provider.destroy(s.id);
    expect((await readFile("/proc/self/mountinfo", "utf8")).includes(s.id)).toBe(false);
  });

  it("an external workspace (no capped disk) is checked after the command instead", async () => {
    const ext = await mkdtemp(join(root, "ext-"));
    // An operator's directory: the sandbox runs as its owner (a root-owned one would be the sandbox user's, which may not enter it).
    await chown(ext, 4242, 4242);
    const s = await provider.create({ network: false, hostWorkspace: ext });
    const r = await s.exec("head -c 80M /dev/zero > big.bin; echo done");
    expect(r.limit?.kind).toBe("disk");
    expect(r.exitCode).toBe(1);
    await provider.destroy(s.id);
  });

  it("ordinary work is unaffected: node, npm and git under the limits", async () => {
    await mkdir(join(sb.hostWorkspace, "dep"), { recursive: true });
    await writeFile(join(sb.hostWorkspace, "dep", "package.json"), JSON.stringify({ name: "dep", version: "1.0.0" }));
    const r = await sb.exec(
      'mkdir app && cd app && npm init -y >/dev/null && npm install --offline --no-audit --no-fund ../dep >/dev/null && node -e \'require("dep/package.json"); console.log("npm ok")\' && ' +
        "git init -q && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo git ok",
      { env: { HOME: "/tmp", npm_config_cache: "/tmp/.npm" } },
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: "npm ok\ngit ok\n" });
    expect(r.limit).toBeUndefined();
  });
});

describe("hard limits with rlimits (the fallback when cgroups are not available)", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-rlimits-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 30_000, maxOutputBytes: 1 << 16, limits: limits({ mode: "rlimit", diskMb: 32 }) });
    sb = await provider.create({ network: false });
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("a 3 GiB allocation fails (RLIMIT_DATA) while WebAssembly reservations still work", async () => {
    const r = await sb.exec("head -c 3G /dev/zero | tail > /dev/null; echo rc=$?; node -e 'new WebAssembly.Memory({ initial: 1 }); console.log(\"wasm ok\")'");
    expect(r.stdout).toMatch(/^rc=[1-9]/m);
    expect(r.stderr).toMatch(/memory exhausted|Cannot allocate/);
    expect(r.stdout).toContain("wasm ok");
    await stillServing(provider);
  });

  it("a single file past the disk cap is cut by RLIMIT_FSIZE and the command reports the cap", async () => {
    const r = await sb.exec("head -c 100M /dev/zero > big.bin; echo rc=$?; du -m big.bin | cut -f1");
    expect(r.stdout).toMatch(/^rc=[1-9]/m);
    expect(Number(r.stdout.split("\n")[1])).toBeLessThanOrEqual(32);
    expect(r.limit?.kind).toBe("disk");
    await stillServing(provider);
  });

  it("the seccomp filter and the /tmp cap hold in this mode too", async () => {
    const r = await sb.exec("grep '^Seccomp:' /proc/self/status; head -c 3G /dev/zero > /tmp/x; echo tmp=$?; du -m /tmp/x | cut -f1");
    expect(r.stdout).toMatch(/^Seccomp:\s+2$/m);
    expect(r.stdout).toMatch(/^tmp=[1-9]/m);
    expect(Number(r.stdout.trim().split("\n")[2])).toBeLessThanOrEqual(64);
  });
});
