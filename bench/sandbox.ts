import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, bwrapBaseArgs } from "../src/sandbox/providers/bwrap-args.js";
import { LocalSandboxProvider } from "../src/sandbox/providers/local.js";
import { hostGit } from "../src/sandbox/workspace/host-git.js";
import { ensureMirror } from "../src/sandbox/workspace/mirror.js";
import { prepareWorkspace } from "../src/sandbox/workspace/prepare-workspace.js";

/** `npm run bench:sandbox`: per-exec overhead and workspace-ready time; the last line is JSON. */
export async function main(argv: string[]): Promise<void> {
  const iterations = Number(flag(argv, "--iterations") ?? 200);
  const wsRuns = Number(flag(argv, "--workspace-runs") ?? 5);
  const largeFiles = Number(flag(argv, "--large-files") ?? 3000);
  const tmp = await mkdtemp(join(tmpdir(), "osw-bench-"));
  try {
    const exec = await benchExec(tmp, iterations);
    log(`exec p50 (ms): spawn ${fmt(exec.spawn.p50)}  bare bwrap ${fmt(exec.bwrap.p50)}  local exec ${fmt(exec.local.p50)}`);
    log(`exec p50 with network on (own netns + egress proxy): ${fmt(exec.localNetworkOn.p50)}`);
    log(`exec ratios: local/bare-bwrap ${fmt(exec.ratioLocalToBwrap)}x (goal <= 1.3)  local/spawn ${fmt(exec.ratioLocalToSpawn)}x`);
    const c = exec.hostCpuMsPerCommand;
    log(
      `exec host CPU per command (ms, all cores): local exec ${fmt(c.local)}  bare bwrap ${fmt(c.bwrap)}  in an already running bwrap ${fmt(c.keptBwrap)} (${fmt(c.local / c.keptBwrap)}x less than local exec)`,
    );
    const small = await benchWorkspace(tmp, "small", 20, wsRuns);
    const large = await benchWorkspace(tmp, "large", largeFiles, wsRuns);
    for (const w of [small, large]) {
      log(
        `workspace ${w.name} (${w.files} files) p50 (ms): clone --shared ${fmt(w.cloneShared.p50)}  ready ${fmt(w.ready.p50)} [${w.mode}]` +
          `  (+ sandbox create ${fmt(w.sandboxCreate.p50)})  first at this commit (builds the base) ${fmt(w.coldMs)}  ratio ${fmt(w.ratio)}x`,
      );
    }
    log(`goal: large ready <= 0.2x clone --shared -> ${fmt(large.ratio)}x`);
    process.stdout.write(`${JSON.stringify({ bench: "sandbox", iterations, exec, workspace: { small, large } })}\n`);
  } finally {
    const provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(tmp, { recursive: true, force: true });
  }
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fmt(n: number): string {
  return n.toFixed(2);
}

interface Stats {
  p50: number;
  p90: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: round(at(0.5)), p90: round(at(0.9)), mean: round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function timeSpawn(file: string, args: string[], env: Record<string, string>, as: { uid?: number; gid?: number } = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"], ...as });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - t));
  });
}

async function benchExec(tmp: string, iterations: number) {
  const provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 60_000, maxOutputBytes: 1 << 20 });
  const sb = await provider.create({ network: false });
  const netSb = await provider.create({ network: true });
  await netSb.exec("true");
  // The floor: the very same bwrap invocation (same mounts, namespaces, env, host user) spawned directly.
  const bare = [...bwrapBaseArgs(sb.layout)];
  const as = sb.owner.drop ? { uid: sb.owner.uid, gid: sb.owner.gid } : {};
  for (const [k, v] of Object.entries(baseEnv())) bare.push("--setenv", k, v);
  bare.push("--chdir", sb.workdir, "/bin/sh", "-c", "true");
  const samples = { spawn: [] as number[], bwrap: [] as number[], local: [] as number[], localNet: [] as number[] };
  const round = async (record: boolean) => {
    const a = await timeSpawn("/bin/sh", ["-c", "true"], { PATH: "/usr/bin:/bin" });
    const b = await timeSpawn("bwrap", bare, {}, as);
    const t = performance.now();
    const r = await sb.exec("true");
    const c = performance.now() - t;
    if (r.exitCode !== 0) throw new Error(`local exec failed: ${r.stderr}`);
    const tn = performance.now();
    await netSb.exec("true");
    const d = performance.now() - tn;
    if (record) {
      samples.localNet.push(d);
      samples.spawn.push(a);
      samples.bwrap.push(b);
      samples.local.push(c);
    }
  };
  for (let i = 0; i < 10; i++) await round(false);
  for (let i = 0; i < iterations; i++) await round(true);
  // Host CPU per command (all cores, /proc/stat), each kind run alone back to back: what a busy machine pays.
  const cpuPer = async (run: () => Promise<unknown>, n = 50) => {
    const h0 = hostBusyMs();
    for (let i = 0; i < n; i++) await run();
    return round2((hostBusyMs() - h0) / n);
  };
  const kept = keptBwrap([...bare.slice(0, -1), 'while IFS= read -r l; do /bin/sh -c "$l" </dev/null >/dev/null 2>&1; echo "done $?"; done'], as);
  await kept.run("true");
  const cpu = {
    local: await cpuPer(() => sb.exec("true")),
    bwrap: await cpuPer(() => timeSpawn("bwrap", bare, {}, as)),
    // The floor of any design that keeps one sandbox process between commands (namespaces, mounts and
    // the filter set up once): the same command started inside an already running bwrap.
    keptBwrap: await cpuPer(() => kept.run("true")),
  };
  kept.stop();
  await provider.destroy(sb.id);
  await provider.destroy(netSb.id);
  const spawnS = stats(samples.spawn);
  const bwrapS = stats(samples.bwrap);
  const localS = stats(samples.local);
  return {
    spawn: spawnS,
    bwrap: bwrapS,
    local: localS,
    localNetworkOn: stats(samples.localNet),
    hostCpuMsPerCommand: cpu,
    ratioLocalToBwrap: round2(localS.p50 / bwrapS.p50),
    ratioLocalToSpawn: round2(localS.p50 / spawnS.p50),
  };
}

/** Host-wide busy CPU so far, in ms (all cores), from /proc/stat. */
function hostBusyMs(): number {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3]! - f[4]!) * 10;
}

/** One bwrap left running with a shell that starts each line it reads as a command and answers when it ends. */
function keptBwrap(args: string[], as: { uid?: number; gid?: number }) {
  const child = spawn("bwrap", args, { env: {}, stdio: ["pipe", "pipe", "ignore"], ...as });
  let waiting: Array<() => void> = [];
  let buffered = "";
  child.stdout.on("data", (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const _ of lines) waiting.shift()?.();
  });
  return {
    run: (command: string) =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${command}\n`);
      }),
    stop: () => {
      waiting = [];
      child.kill("SIGKILL");
    },
  };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

async function makeRepo(dir: string, files: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const perDir = 50;
  for (let i = 0; i < files; i++) {
    const sub = join(dir, "src", `mod${Math.floor(i / perDir)}`);
    if (i % perDir === 0) await mkdir(sub, { recursive: true });
    await writeFile(join(sub, `file${i}.ts`), `export const value${i} = ${i};\n${"// filler line for a realistic size\n".repeat(20)}`);
  }
  await writeFile(join(dir, "README.md"), "# bench\n");
  const env = { GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
  await hostGit(["init", "-q", "-b", "main", dir]);
  await hostGit(["-C", dir, "add", "-A"]);
  await hostGit(["-C", dir, "commit", "-q", "-m", "seed"], { env });
}

async function benchWorkspace(tmp: string, name: string, files: number, runs: number) {
  const seed = join(tmp, `seed-${name}`);
  await makeRepo(seed, files);
  const mirrorRoot = join(tmp, "mirrors");
  const mirror = await ensureMirror({ mirrorRoot, repo: `bench/${name}`, remoteUrl: seed });
  const provider = new LocalSandboxProvider({ root: join(tmp, "sandboxes"), execTimeoutMs: 120_000, maxOutputBytes: 1 << 20 });
  const clone: number[] = [];
  const ready: number[] = [];
  let coldMs = 0;
  let mode = "";
  const create: number[] = [];
  const prepare = async (i: number) => {
    const t = performance.now();
    const sb = await provider.create({ network: false });
    create.push(performance.now() - t);
    const ws = await prepareWorkspace({ sandbox: sb, mirrorRoot, mirror, ref: "main", branch: `bench/${i}`, publicUrl: `https://github.com/bench/${name}.git` });
    mode = ws.mode;
    return { ms: ws.readyMs, id: sb.id };
  };
  // The first workspace also builds the shared base checkout for this commit.
  await sync();
  const cold = await prepare(-1);
  coldMs = round(cold.ms);
  create.length = 0;
  // Separate phases, each after a sync: a clone's background writeback (thousands of files) would
  // otherwise land in the next measurement.
  await sync();
  for (let i = 0; i < runs; i++) ready.push((await prepare(i)).ms);
  await sync();
  for (let i = 0; i < runs; i++) {
    const dest = join(tmp, `clone-${name}-${i}`);
    const t = performance.now();
    await hostGit(["clone", "--shared", "--quiet", mirror, dest]);
    clone.push(performance.now() - t);
  }
  for (const s of await provider.list()) await provider.destroy(s.id);
  const c = stats(clone);
  const r = stats(ready);
  return { name, files, mode, cloneShared: c, ready: r, sandboxCreate: stats(create), coldMs, ratio: round2(r.p50 / c.p50) };
}

function sync(): Promise<void> {
  return new Promise((resolve) => spawn("sync", { stdio: "ignore" }).on("close", () => resolve()));
}
