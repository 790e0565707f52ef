import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sign } from "@octokit/webhooks-methods";
import { startEmbeddedRedis } from "../src/store/embedded-redis.js";
import { createLogger } from "../src/logger.js";

const SECRET = "bench-secret";
const here = fileURLToPath(import.meta.url);
const serverEntry = join(here, "..", `intake-server${here.endsWith(".ts") ? ".ts" : ".js"}`);

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

async function makeDeliveries(n: number): Promise<Delivery[]> {
  const out: Delivery[] = [];
  for (let i = 0; i < n; i++) {
    const body = JSON.stringify({
      action: "created",
      installation: { id: 1 },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "alice", id: 1, type: "User" },
      issue: { number: 1 + (i % 50), id: 1000 + (i % 50), pull_request: { url: "x" } },
      comment: { id: i, body: `@open-swe please fix the flaky test number ${i}`, user: { login: "alice", id: 1, type: "User" } },
    });
    out.push({
      body,
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "x-github-event": "issue_comment",
        "x-github-delivery": randomUUID(),
        "x-hub-signature-256": await sign(SECRET, body),
      },
    });
  }
  return out;
}

function post(agent: Agent, port: number, d: Delivery): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/github/webhooks", method: "POST", headers: d.headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(d.body);
  });
}

/** A process's user + system CPU time in ms (Linux `/proc/<pid>/stat`, clock ticks of 10 ms); null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

interface Result {
  rps: number;
  /** The server's and Redis's CPU ms per 1,000 requests: what a loaded, shared machine skews least. */
  cpuPerK: number | null;
  p50: number;
  p99: number;
  errors: number;
  latencies: number[];
}

/** The server's and Redis's CPU ms (each server is loaded alone, so Redis's share is that server's). */
const serverCpuMs = (pids: (number | undefined)[]): number | null => {
  const each = pids.map(cpuMs);
  return each.includes(null) ? null : (each as number[]).reduce((a, b) => a + b, 0);
};

async function load(server: { port: number; child: ChildProcess }, deliveries: Delivery[], concurrency: number, redisPid?: number): Promise<Result> {
  const { port } = server;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const cpuBefore = serverCpuMs([server.child.pid, redisPid]);
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) {
        const d = deliveries[next++]!;
        const t = performance.now();
        const status = await post(agent, port, d);
        latencies.push(performance.now() - t);
        if (status !== 200) errors += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = serverCpuMs([server.child.pid, redisPid]);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2));
  const cpuPerK = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / deliveries.length);
  return { rps: Math.round(deliveries.length / seconds), cpuPerK, p50: pct(0.5), p99: pct(0.99), errors, latencies };
}

function startServer(mode: "full" | "bare" | "bare-add", redisUrl: string, key: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", serverEntry, mode, redisUrl, SECRET, key], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `npm run bench:intake [-- --requests N --rounds R]`: the whole app against a bare Probot app (and a bare
 * one doing a single queue.add), same run, same load. Each round measures every server in a rotated
 * order; throughput is the median over rounds, latencies are pooled. Each server's CPU time per 1,000
 * requests, Redis's included (`/proc`) is printed too: on a machine shared with other work, bare's CPU per request over the
 * app's (`cpu ratio`) is the steadier figure; req/s and p99 swing with whatever else runs.
 */
export async function main(argv: string[]): Promise<void> {
  const arg = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
  const perRound = arg("--requests", 3000);
  const rounds = arg("--rounds", 3);
  const dataDir = mkdtempSync(join(tmpdir(), "open-swe-bench-"));
  const redis = await startEmbeddedRedis(dataDir, createLogger("silent"));
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const servers = {
    bare: await startServer("bare", redis.url, key),
    bareAdd: await startServer("bare-add", redis.url, key),
    full: await startServer("full", redis.url, key),
  };
  const names = Object.keys(servers) as (keyof typeof servers)[];
  const figures: Record<string, unknown> = { requestsPerRound: perRound, rounds };
  try {
    for (const concurrency of [10, 50]) {
      for (const name of names) await load(servers[name], await makeDeliveries(300), concurrency);
      const runs: Record<string, { rps: number[]; cpu: number[]; lat: number[]; errors: number }> = Object.fromEntries(names.map((n) => [n, { rps: [], cpu: [], lat: [], errors: 0 }]));
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < names.length; k++) {
          const name = names[(k + round) % names.length]!;
          const r = await load(servers[name], await makeDeliveries(perRound), concurrency, redis.pid());
          runs[name]!.rps.push(r.rps);
          if (r.cpuPerK !== null) runs[name]!.cpu.push(r.cpuPerK);
          runs[name]!.lat.push(...r.latencies);
          runs[name]!.errors += r.errors;
        }
      }
      const summary = Object.fromEntries(
        names.map((n) => {
          const lat = runs[n]!.lat.sort((a, b) => a - b);
          const pct = (p: number) => Number(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!.toFixed(2));
          return [n, { rps: median(runs[n]!.rps), cpuPerK: runs[n]!.cpu.length ? median(runs[n]!.cpu) : null, p50: pct(0.5), p99: pct(0.99), errors: runs[n]!.errors }];
        }),
      ) as Record<keyof typeof servers, Omit<Result, "latencies">>;
      const ratio = Number((summary.full.rps / summary.bare.rps).toFixed(3));
      const addRatio = Number((summary.bareAdd.rps / summary.bare.rps).toFixed(3));
      const p99Ratio = Number((summary.full.p99 / summary.bare.p99).toFixed(3));
      // CPU per request, bare's over the app's: the throughput ratio a CPU-bound server would reach.
      const cpuRatio = (r: Omit<Result, "latencies">) => (r.cpuPerK && summary.bare.cpuPerK ? Number((summary.bare.cpuPerK / r.cpuPerK).toFixed(3)) : null);
      const fmt = (r: Omit<Result, "latencies">) => `${r.rps} req/s p50 ${r.p50} ms p99 ${r.p99} ms cpu ${r.cpuPerK ?? "?"} ms/1k`;
      console.log(
        `concurrency ${concurrency}: bare probot ${fmt(summary.bare)} | bare + one queue.add ${fmt(summary.bareAdd)} (ratio ${addRatio}, cpu ratio ${cpuRatio(summary.bareAdd)}) | open-swe ${fmt(summary.full)} (ratio ${ratio}, p99 ratio ${p99Ratio}, cpu ratio ${cpuRatio(summary.full)})`,
      );
      figures[`c${concurrency}`] = { ...summary, ratio, p99Ratio, cpuRatio: cpuRatio(summary.full), bareAddRatio: addRatio, bareAddCpuRatio: cpuRatio(summary.bareAdd) };
    }
  } finally {
    for (const name of names) servers[name].child.kill("SIGKILL");
    await redis.stop();
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ bench: "intake", ...figures }));
}
