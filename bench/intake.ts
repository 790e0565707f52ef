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
import { connectRedis } from "../src/store/redis.js";
import { fmtSpread, loadAverage, median, quantile, spreadOf } from "./intake-stats.js";

const SECRET = "bench-secret";
const here = fileURLToPath(import.meta.url);
const serverEntry = join(here, "..", `intake-server${here.endsWith(".ts") ? ".ts" : ".js"}`);

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * The same signed bodies for every server and round (signing is the client's cost, paid once); each
 * request gets a fresh delivery id, so no server dedupes a request another round already sent.
 */
async function makeBodies(n: number): Promise<Delivery[]> {
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
        "x-hub-signature-256": await sign(SECRET, body),
      },
    });
  }
  return out;
}

const withFreshIds = (bodies: readonly Delivery[]): Delivery[] => bodies.map((d) => ({ body: d.body, headers: { ...d.headers, "x-github-delivery": randomUUID() } }));

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
  /** The server process's alone (the web tier's share). */
  webCpuPerK: number | null;
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
  const webBefore = cpuMs(server.child.pid);
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
  const webAfter = cpuMs(server.child.pid);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2));
  const cpuPerK = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / deliveries.length);
  const webCpuPerK = webBefore === null || webAfter === null ? null : Math.round(((webAfter - webBefore) * 1000) / deliveries.length);
  return { rps: Math.round(deliveries.length / seconds), cpuPerK, webCpuPerK, p50: pct(0.5), p99: pct(0.99), errors, latencies };
}

/** Each variant and the intake-server mode that serves it; the first three are always measured, the others on `--also a,b`. */
const VARIANTS = { bare: "bare", bareAdd: "bare-add", full: "full", fullStream: "full-stream", xadd: "bare-xadd", bareAddPiped: "bare-add-piped" } as const;
type Variant = keyof typeof VARIANTS;
const ALWAYS: Variant[] = ["bare", "bareAdd", "full", "fullStream"];
const LABELS: Partial<Record<Variant, string>> = { bareAdd: "bare + one queue.add", full: "open-swe, WEBHOOK_INTAKE=queue", fullStream: "open-swe (default, stream)" };

function startServer(mode: string, redisUrl: string, key: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", serverEntry, mode, redisUrl, SECRET, key], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
}

type Figures = Omit<Result, "latencies">;
const loadavg = () => loadAverage(() => readFileSync("/proc/loadavg", "utf8"));

/**
 * `npm run bench:intake [-- --requests N --rounds R]`: the whole app against a bare Probot app and a bare
 * one doing a single queue.add, on one Redis, warmed up, with the same signed bodies. Each round loads
 * every server in turn (the order rotates round by round) and yields one ratio per pair; the ratios'
 * median and range over the rounds are the figures: a swing of the machine's load moves the servers of a
 * round together, so their ratio holds steadier than either throughput. CPU per 1,000 requests (the
 * server's and Redis's, from `/proc`) is the steadiest of all on a shared machine; the load average is
 * printed before and after.
 */
export async function main(argv: string[]): Promise<void> {
  const arg = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
  const perRound = arg("--requests", 1000);
  const rounds = arg("--rounds", 9);
  const dataDir = mkdtempSync(join(tmpdir(), "open-swe-bench-"));
  const redis = await startEmbeddedRedis(dataDir, createLogger("silent"));
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const also = argv.includes("--also") ? (argv[argv.indexOf("--also") + 1] ?? "").split(",") : [];
  const names = [...ALWAYS, ...(Object.keys(VARIANTS) as Variant[]).filter((v) => also.includes(v))];
  const servers = {} as Record<Variant, { child: ChildProcess; port: number }>;
  let pump: { child: ChildProcess } | null = null;
  const streams = connectRedis(redis.url);
  /** Lets the pump run until the stream is empty; its and Redis's CPU ms per 1,000 entries meanwhile. */
  const drain = async (child: ChildProcess, entries: number): Promise<number> => {
    const before = serverCpuMs([child.pid, redis.pid()]);
    child.kill("SIGCONT");
    while ((await streams.xlen("bench:intake:agent")) > 0) await new Promise((r) => setTimeout(r, 20));
    const after = serverCpuMs([child.pid, redis.pid()]);
    return before === null || after === null ? 0 : Math.round(((after - before) * 1000) / entries);
  };
  const figures: Record<string, unknown> = { requestsPerRound: perRound, rounds, loadBefore: loadavg() };
  console.log(`load average before: ${figures.loadBefore ?? "?"}`);
  try {
    for (const name of names) servers[name] = await startServer(VARIANTS[name], redis.url, key);
    // The stream intake's other half, as a worker runs it: its CPU is printed apart (it is not the web tier's).
    pump = await startServer("pump", redis.url, key);
    const bodies = await makeBodies(perRound);
    for (const concurrency of [10, 50]) {
      for (const name of names) await load(servers[name], withFreshIds(bodies.slice(0, 300)), concurrency);
      if (pump) await drain(pump.child, 300);
      const pumpCpu: number[] = [];
      const runs = Object.fromEntries(names.map((n) => [n, { rounds: [] as Figures[], lat: [] as number[] }])) as Record<Variant, { rounds: Figures[]; lat: number[] }>;
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < names.length; k++) {
          const name = names[(k + round) % names.length]!;
          // The stream intake's pump is a worker's work: held while its web tier is measured, then drained (its CPU apart).
          if (name === "fullStream") pump?.child.kill("SIGSTOP");
          const { latencies, ...r } = await load(servers[name], withFreshIds(bodies), concurrency, redis.pid());
          if (name === "fullStream" && pump) pumpCpu.push(await drain(pump.child, bodies.length));
          runs[name].rounds.push(r);
          runs[name].lat.push(...latencies);
        }
      }
      const summary = Object.fromEntries(
        names.map((n) => {
          const lat = runs[n].lat.sort((a, b) => a - b);
          const rs = runs[n].rounds;
          const cpu = rs.flatMap((r) => (r.cpuPerK === null ? [] : [r.cpuPerK]));
          const web = rs.flatMap((r) => (r.webCpuPerK === null ? [] : [r.webCpuPerK]));
          const fig: Figures = {
            rps: median(rs.map((r) => r.rps)),
            cpuPerK: cpu.length ? median(cpu) : null,
            webCpuPerK: web.length ? median(web) : null,
            p50: Number(quantile(lat, 0.5).toFixed(2)),
            p99: Number(quantile(lat, 0.99).toFixed(2)),
            errors: rs.reduce((a, r) => a + r.errors, 0),
          };
          return [n, fig];
        }),
      ) as Record<Variant, Figures>;
      // One ratio per round: the variant's figure over bare's from the same round.
      const perRoundRatio = (n: Variant, of: (r: Figures) => number | null, invert = false) => {
        const xs = runs[n].rounds.flatMap((r, i) => {
          const a = of(r);
          const b = of(runs.bare.rounds[i]!);
          return a === null || b === null || a === 0 || b === 0 ? [] : [invert ? b / a : a / b];
        });
        return xs.length ? spreadOf(xs) : null;
      };
      const ratios = (n: Variant) => ({
        rps: perRoundRatio(n, (r) => r.rps),
        p99: perRoundRatio(n, (r) => r.p99),
        // CPU per request, bare's over the variant's: the throughput ratio a CPU-bound server would reach.
        cpu: perRoundRatio(n, (r) => r.cpuPerK, true),
      });
      const fmt = (r: Figures) => `${r.rps} req/s p50 ${r.p50} ms p99 ${r.p99} ms cpu ${r.cpuPerK ?? "?"} ms/1k (server alone ${r.webCpuPerK ?? "?"})`;
      const fmtRatios = (x: ReturnType<typeof ratios>) => `rps ratio ${x.rps ? fmtSpread(x.rps) : "?"}, p99 ratio ${x.p99 ? fmtSpread(x.p99) : "?"}, cpu ratio ${x.cpu ? fmtSpread(x.cpu) : "?"}`;
      const entry: Record<string, unknown> = { ...summary };
      console.log(`concurrency ${concurrency} (${rounds} rounds × ${perRound} requests; ratios: median [min–max] over rounds, against bare in the same round)`);
      console.log(`  bare probot                    ${fmt(summary.bare)}`);
      for (const n of names.filter((x) => x !== "bare")) {
        const x = ratios(n);
        entry[`${n}Ratios`] = x;
        console.log(`  ${(LABELS[n] ?? n).padEnd(30)} ${fmt(summary[n])} | ${fmtRatios(x)}`);
      }
      if (pumpCpu.length) {
        entry.pumpCpuPerK = median(pumpCpu);
        console.log(`  intake pump (a worker's share of the stream intake, not the web tier's): ${entry.pumpCpuPerK} ms/1k CPU, pump + its Redis work`);
      }
      figures[`c${concurrency}`] = entry;
    }
  } finally {
    pump?.child.kill("SIGKILL");
    streams.disconnect();
    for (const name of names) servers[name]?.child.kill("SIGKILL");
    await redis.stop();
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  }
  figures.loadAfter = loadavg();
  console.log(`load average after: ${figures.loadAfter ?? "?"}`);
  console.log(JSON.stringify({ bench: "intake", ...figures }));
}
