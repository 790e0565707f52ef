import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "node:inspector/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sign } from "@octokit/webhooks-methods";
import nock from "nock";
import { readConfig } from "../src/config/env.js";
import { createLogger } from "../src/logger.js";
import { startProcess } from "../src/main.js";
import { createSandboxProvider } from "../src/sandbox/registry.js";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { benchVariants, busyCore } from "./busy-core.js";
import { makeRemote, mockRunGitHub } from "./run-fixture.js";
import { phaseLine, setupPhaseMeans, setupTotals, yieldedSeconds } from "./setup-phases.js";
import { connectRedis } from "../src/store/redis.js";
import { spawner } from "../src/sandbox/spawner.js";

const round = (n: number) => Number(n.toFixed(3));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function flag(argv: string[], name: string, fallback: string): string {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
}

/** CPU seconds of process `pid` so far: its own and its reaped children's (/proc/<pid>/stat), 0 when gone. */
function procCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

/** The last pid the kernel handed out: its growth is how many processes (and threads) started meanwhile. */
const lastPid = () => Number(readFileSync("/proc/loadavg", "utf8").trim().split(" ").at(-1));

/**
 * What one process start costs on this machine, in host CPU ms (all cores, from /proc/stat): `/bin/true`
 * forked and executed by a shell, and a bare bwrap with user and pid namespaces around it. Every sandbox
 * command pays several of these, so machines whose page faults are dear (some VMs) differ most here.
 */
function machineCalibration(): { trueMs: number; bwrapMs: number } {
  const cost = (script: string, n: number) => {
    const h0 = hostCpu();
    execFileSync("/bin/sh", ["-c", script], { stdio: "ignore" });
    const h1 = hostCpu();
    return round(((h1.busy - h0.busy) * 10) / n);
  };
  const n = 40;
  return {
    trueMs: cost(`i=0; while [ $i -lt ${n} ]; do /bin/true; i=$((i+1)); done`, n),
    bwrapMs: cost(`i=0; while [ $i -lt ${n} ]; do bwrap --ro-bind / / --unshare-user --unshare-pid /bin/true; i=$((i+1)); done`, n),
  };
}

/** Host-wide CPU time so far (all cores), from /proc/stat. */
function hostCpu(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/**
 * `npm run bench:scale`: one process (web + worker) with WORKER_CONCURRENCY raised runs N agent runs at
 * once on local sandboxes, each `--steps` model calls of a replayed model that takes `--delay-ms` per call
 * and runs one cheap command per step. Reports, per N, wall time against N = 1 in the same run, worker
 * RSS and Redis memory per active run; and, while the largest N is busy, webhook → first model call for
 * `--probes` more runs (until the 👀 reaction the run sends as its first model call starts), and the
 * event loop's and the host's CPU share per round.
 *
 * Every round runs idle and then "loaded" (one core kept busy by `yes > /dev/null`, started and killed
 * here; `--variants idle` or `--variants loaded` runs one), each against its own N = 1.
 *
 * `--start-priority-ms <ms>` sets START_PRIORITY_MS (how long runs under way wait, per call, for a run that
 * starts; 0 turns it off) to compare with the default.
 *
 * `--cpu-prof <file>` writes a CPU profile (`.cpuprofile`) of this process over the measured rounds only
 * (not start-up, warm-up or clean-up): the worker's own cost per run.
 *
 * `--n 1,10,20` picks the Ns. Every thread is warmed first (sandbox, mirror, checkout) by one round with
 * all of them, so the rounds measure runs, not first-time sandbox creation.
 */
export async function main(argv: string[]): Promise<void> {
  const ns = flag(argv, "--n", "1,10,20")
    .split(",")
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  const steps = Number(flag(argv, "--steps", "20"));
  const delayMs = Number(flag(argv, "--delay-ms", "1000"));
  const probes = Number(flag(argv, "--probes", "10"));
  const cpuProf = flag(argv, "--cpu-prof", "");
  const startPriorityMs = flag(argv, "--start-priority-ms", "");
  const variants = benchVariants(argv);
  const maxN = Math.max(...ns);
  const threads = maxN + probes;

  const data = mkdtempSync(join(tmpdir(), "open-swe-bench-scale-"));
  const remoteRoot = mkdtempSync(join(tmpdir(), "open-swe-bench-scale-remote-"));
  makeRemote(remoteRoot);
  const redisDir = mkdtempSync(join(tmpdir(), "open-swe-bench-scale-redis-"));
  const redisServer = await startEmbeddedRedis(redisDir, createLogger("silent"));
  const replay = join(data, "run.json");
  const turns = [
    ...Array.from({ length: steps - 1 }, (_, i) => ({ tool_calls: [{ name: "execute", args: { command: `echo step ${i} && ls` } }], delay_ms: delayMs })),
    { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }], delay_ms: delayMs },
  ];
  writeFileSync(replay, JSON.stringify(turns));
  const secret = "bench";
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const prefix = `bench${randomUUID().slice(0, 6)}`;
  const config = readConfig({
    APP_ID: "1",
    PRIVATE_KEY: key,
    WEBHOOK_SECRET: secret,
    QUEUE_REDIS_URL: redisServer.url,
    QUEUE_PREFIX: prefix,
    DATA_DIR: data,
    LOG_LEVEL: process.env["BENCH_LOG_LEVEL"] ?? "silent",
    JOB_ATTEMPTS: "1",
    WORKER_CONCURRENCY: String(threads + 2),
    OPEN_SWE_MODEL: `replay:${replay}`,
    GIT_REMOTE_TEMPLATE: `file://${remoteRoot}/{owner}/{repo}.git`,
    ...(startPriorityMs ? { START_PRIORITY_MS: startPriorityMs } : {}),
  });
  const api = mockRunGitHub();
  // The run puts 👀 on the request as its first model call starts: that is when a probe's wait ends.
  const eyes = new Map<number, (at: number) => void>();
  api.post(/\/issues\/comments\/\d+\/reactions$/).reply(201, (uri, body) => {
    const at = performance.now();
    if ((body as { content?: string }).content === "eyes") eyes.get(Number(/comments\/(\d+)\/reactions/.exec(uri)![1]))?.(at);
    return {};
  });
  const proc = await startProcess({
    role: "all",
    config,
    log: createLogger(process.env["BENCH_LOG_LEVEL"] ?? "silent"),
    port: 0,
    host: "127.0.0.1",
    octokitDefaults: { retry: { enabled: false }, throttle: { enabled: false } },
  });
  const redis = connectRedis(redisServer.url);
  /** ms from `sent` to the start of the run's first model call for the request `commentId` (its 👀). */
  const firstModelCall = (commentId: number, sent: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const giveUp = setTimeout(() => reject(new Error(`the run for comment ${commentId} never reached its model`)), 120_000);
      eyes.set(commentId, (at) => {
        clearTimeout(giveUp);
        eyes.delete(commentId);
        resolve(at - sent);
      });
    });
  const agentQueue = proc.queues.queues.agent;
  let commentId = 1000;

  /** Sends the webhook that asks for a run on issue `issue`; returns the comment id it carries. */
  const ask = async (issue: number): Promise<number> => {
    const id = ++commentId;
    const body = JSON.stringify({
      action: "created",
      installation: { id: 9 },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "dana", id: 3, type: "User" },
      issue: { number: issue, id: 5000 + issue },
      comment: { id, body: `@open-swe task ${id}`, user: { login: "dana", id: 3, type: "User" } },
    });
    const res = await fetch(`http://127.0.0.1:${proc.port}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment", "x-github-delivery": randomUUID(), "x-hub-signature-256": await sign(secret, body) },
      body,
    });
    if (res.status >= 300) throw new Error(`webhook answered ${res.status}`);
    return id;
  };
  const finished = async () => {
    // A thread's runs after its first go to its sandbox's host queue (agent@<host>): count them all.
    const c = await proc.queues.jobCounts("agent", ["completed", "failed"]);
    return { completed: c["completed"] ?? 0, failed: c["failed"] ?? 0 };
  };
  const waitFinished = async (target: number, timeoutMs: number, sample?: () => void) => {
    const giveUp = Date.now() + timeoutMs;
    for (;;) {
      const f = await finished();
      if (f.completed + f.failed >= target) return f;
      if (Date.now() > giveUp) throw new Error(`only ${f.completed + f.failed} of ${target} runs finished in ${timeoutMs} ms`);
      sample?.();
      await sleep(100);
    }
  };
  /** Calls per Redis command so far (INFO commandstats). */
  const commandCalls = async (): Promise<Map<string, number>> => new Map([...(await redis.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);
  let expected = 0;

  try {
    const machine = machineCalibration();
    console.log(`machine: a process start costs ${machine.trueMs} ms of host CPU (/bin/true from a shell), a bare bwrap ${machine.bwrapMs} ms`);
    console.log(`warming ${threads} threads (sandbox, mirror, checkout) with one run each...`);
    const warmStart = performance.now();
    await Promise.all(Array.from({ length: threads }, (_, i) => ask(i + 1)));
    expected += threads;
    const warm = await waitFinished(expected, 600_000);
    const warmMs = performance.now() - warmStart;
    if (warm.failed > 0) {
      const failed = await agentQueue.getJobs(["failed"]);
      throw new Error(`warm-up runs failed: ${failed.map((j) => j.failedReason).join(" | ")}`);
    }

    const rounds: Array<{
      variant: "idle" | "loaded";
      cpuMsPerRun: { worker: number; spawnerAndCommands: number; redis: number; restOfHost: number };
      processesPerRun: number;
      loadavg: string;
      n: number;
      wallMs: number;
      rssPerRunMb: number;
      rssIdleMb: number;
      rssPeakMb: number;
      redisBytesPerRun: number;
      redisCommandsPerRun: number;
      redisTopCommandsPerRun: Record<string, number>;
      workerCpuMsPerRun: number;
      eventLoopDelayP99Ms: number;
      eventLoopUtilization: number;
      hostCpuBusy: number;
    }> = [];
    const firstCall: Partial<Record<"idle" | "loaded", number[]>> = {};
    const probePhases: Partial<Record<"idle" | "loaded", Record<string, number>>> = {};
    const probeYielded: Partial<Record<"idle" | "loaded", number>> = {};
    // The last round is the largest N again with probe runs asked for while it is busy: its wall time
    // is not a round's figure (it has more runs), only the probes' first model calls are. Every round
    // runs once per variant: idle, and with one core kept busy by `yes > /dev/null`.
    const profiler = cpuProf ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.start");
    }
    const plan = variants.flatMap((variant) => [...ns.map((n) => ({ variant, n, probe: false })), ...(probes > 0 ? [{ variant, n: maxN, probe: true }] : [])]);
    for (const { variant, n, probe } of plan) {
      const busy = variant === "loaded" ? busyCore() : null;
      if (global.gc) global.gc();
      await sleep(500);
      const rssIdle = process.memoryUsage.rss();
      const redisBefore = await usedMemory();
      const commands0 = await commandCalls();
      let rssPeak = rssIdle;
      const cpu0 = process.cpuUsage();
      const elu0 = performance.eventLoopUtilization();
      const host0 = hostCpu();
      const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))![1]);
      const spawner0 = procCpuSeconds(spawner().pid());
      const redis0 = procCpuSeconds(redisPid);
      const pid0 = lastPid();
      const busy0 = procCpuSeconds(busy?.pid);
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      let phases0 = await setupTotals();
      let yielded0 = await yieldedSeconds();
      const t0 = performance.now();
      await Promise.all(Array.from({ length: n }, (_, i) => ask(i + 1)));
      expected += n;
      const probeCalls: Array<Promise<number>> = [];
      if (probe) {
        // Once the runs are well under way (a few model calls each), ask for the probe runs one by one.
        await sleep(Math.min(5 * delayMs, (steps * delayMs) / 3));
        // The busy runs are set up by now: the phases below are the probes' own.
        phases0 = await setupTotals();
        yielded0 = await yieldedSeconds();
        for (let p = 0; p < probes; p++) {
          const sent = performance.now();
          const call = firstModelCall(commentId + 1, sent);
          await ask(maxN + p + 1);
          call.catch(() => {}); // awaited below; a failed round must not crash on it first
          probeCalls.push(call);
          await sleep(Math.max(50, delayMs / 4));
        }
        expected += probes;
      }
      const f = await waitFinished(expected, 600_000, () => {
        rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      });
      const wallMs = performance.now() - t0;
      const busyCpu = procCpuSeconds(busy?.pid);
      busy?.stop();
      loop.disable();
      const cpu = process.cpuUsage(cpu0);
      const eventLoopUtilization = round(performance.eventLoopUtilization(elu0).utilization);
      const host1 = hostCpu();
      const hostCpuBusy = round((host1.busy - host0.busy) / (host1.total - host0.total));
      // Where the host's CPU went, per run: this process (web + worker), the spawner with the processes it
      // reaped, Redis, and the rest. bwrap reports a command's exit as soon as the command ends and exits
      // before its pid-1 reaper, so that reaper and the command under it are reaped by the host's init:
      // "restOfHost" is mostly the sandboxed commands themselves (and kernel threads).
      const hostSeconds = (host1.busy - host0.busy) / 100 - (busyCpu - busy0);
      const cpuSplitMs = (() => {
        const worker = (cpu.user + cpu.system) / 1e6;
        const spawned = procCpuSeconds(spawner().pid()) - spawner0;
        const redisCpu = procCpuSeconds(redisPid) - redis0;
        const per = (sec: number) => Math.round((sec * 1000) / (n + (probe ? probes : 0)));
        return { worker: per(worker), spawnerAndCommands: per(spawned), redis: per(redisCpu), restOfHost: per(Math.max(0, hostSeconds - worker - spawned - redisCpu)) };
      })();
      const processesPerRun = Math.round((lastPid() - pid0) / (n + (probe ? probes : 0)));
      const runsThisRound = n + (probe ? probes : 0);
      if (f.failed > 0) throw new Error(`${f.failed} runs failed: ${(await agentQueue.getJobs(["failed"])).map((j) => j.failedReason).join(" | ")}`);
      const redisAfter = await usedMemory();
      const commands1 = await commandCalls();
      const perRun = [...commands1]
        .map(([name, calls]) => [name, (calls - (commands0.get(name) ?? 0)) / runsThisRound] as const)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1]);
      if (!probe)
        rounds.push({
          cpuMsPerRun: cpuSplitMs,
          processesPerRun,
          variant,
          loadavg: loadavg()
            .map((l) => l.toFixed(2))
            .join(" "),
          n,
          wallMs: round(wallMs),
          rssPerRunMb: round((rssPeak - rssIdle) / n / 2 ** 20),
          rssIdleMb: round(rssIdle / 2 ** 20),
          rssPeakMb: round(rssPeak / 2 ** 20),
          redisBytesPerRun: Math.round((redisAfter - redisBefore) / n),
          redisCommandsPerRun: Math.round(perRun.reduce((a, [, c]) => a + c, 0)),
          redisTopCommandsPerRun: Object.fromEntries(perRun.slice(0, 6).map(([name, c]) => [name, Math.round(c)])),
          workerCpuMsPerRun: round((cpu.user + cpu.system) / 1000 / runsThisRound),
          eventLoopDelayP99Ms: round(loop.percentile(99) / 1e6),
          eventLoopUtilization,
          hostCpuBusy,
        });
      if (probeCalls.length > 0) {
        firstCall[variant] = await Promise.all(probeCalls);
        probePhases[variant] = setupPhaseMeans(phases0, await setupTotals());
        probeYielded[variant] = round((await yieldedSeconds()) - yielded0);
      }
    }
    if (profiler) {
      const { profile } = await profiler.post("Profiler.stop");
      writeFileSync(cpuProf, JSON.stringify(profile));
      profiler.disconnect();
      console.log(`CPU profile of the measured rounds: ${cpuProf}`);
    }
    const baseOf = (variant: string) => rounds.find((r) => r.variant === variant && r.n === 1) ?? rounds.find((r) => r.variant === variant)!;
    const whileBusy = (calls: number[] | undefined, phases: Record<string, number> | undefined, yielded: number | undefined) =>
      calls && calls.length > 0
        ? {
            runsBusy: maxN,
            probes: calls.length,
            p50Ms: round(pct(calls, 0.5)),
            p99Ms: round(pct(calls, 0.99)),
            maxMs: round(Math.max(...calls)),
            inOrderSentMs: calls.map(Math.round),
            setupPhasesMs: phases ?? {},
            busyRunsYieldedS: yielded ?? 0,
          }
        : null;
    const figures = {
      bench: "scale",
      machine,
      steps,
      delayMs,
      warmUp: { runs: threads, wallMs: round(warmMs) },
      rounds: rounds.map((r) => ({ ...r, vsN1: round(r.wallMs / baseOf(r.variant).wallMs) })),
      idealWallMs: steps * delayMs,
      firstModelCallWhileBusy: Object.fromEntries(variants.map((v) => [v, whileBusy(firstCall[v], probePhases[v], probeYielded[v])])),
    };
    for (const r of figures.rounds) {
      console.log(
        `[${r.variant}, load ${r.loadavg}] N=${r.n}: ${r.wallMs} ms wall (${r.vsN1}× N=1; ideal ${figures.idealWallMs} ms), worker RSS +${r.rssPerRunMb} MB per run (${r.rssIdleMb} MB idle → ${r.rssPeakMb} MB peak), Redis +${r.redisBytesPerRun} bytes and ${r.redisCommandsPerRun} commands per run (${Object.entries(
          r.redisTopCommandsPerRun,
        )
          .map(([c, k]) => `${c} ${k}`)
          .join(", ")}), worker CPU ${r.workerCpuMsPerRun} ms per run, host CPU per run (ms): ${Object.entries(r.cpuMsPerRun)
          .map(([k, v]) => `${k} ${v}`)
          .join(
            ", ",
          )}, ${r.processesPerRun} processes started per run, event-loop delay p99 ${r.eventLoopDelayP99Ms} ms, event loop ${Math.round(r.eventLoopUtilization * 100)} % busy, host CPU ${Math.round(r.hostCpuBusy * 100)} % busy`,
      );
    }
    for (const [variant, w] of Object.entries(figures.firstModelCallWhileBusy)) {
      if (w) {
        console.log(
          `[${variant}] webhook → first model call while ${w.runsBusy} runs are busy: p50 ${w.p50Ms} ms, p99 ${w.p99Ms} ms (${w.probes} runs, in the order asked: ${w.inOrderSentMs.join(", ")})`,
        );
        console.log(`  the busy runs waited ${w.busyRunsYieldedS} s in all for the probes to start (START_PRIORITY_MS)`);
        console.log(`  set-up of the ${w.probes} probe runs, mean ms per phase: ${phaseLine(w.setupPhasesMs)}`);
      }
    }
    // The issue's goals (#29) side by side: 20 at once ≤ 1.3× one, p99 with 20 busy ≤ 1 s, in each condition.
    for (const variant of variants) {
      const most = figures.rounds.find((r) => r.variant === variant && r.n === maxN);
      const busy = figures.firstModelCallWhileBusy[variant];
      console.log(`[goals, ${variant}] ${maxN} runs at once: ${most?.vsN1 ?? "?"}× one (goal ≤ 1.3) | first model call with ${maxN} busy: p99 ${busy?.p99Ms ?? "?"} ms (goal ≤ 1000)`);
    }
    console.log(JSON.stringify(figures));
  } finally {
    await proc.stop();
    // Overlay mounts must go before their directories do.
    const provider = createSandboxProvider(config.sandbox);
    for (const sb of await provider.list()) await provider.destroy(sb.id);
    await redis.quit();
    await redisServer.stop();
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(data, { recursive: true, force: true });
    rmSync(remoteRoot, { recursive: true, force: true });
    rmSync(redisDir, { recursive: true, force: true });
  }
}
