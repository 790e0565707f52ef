import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
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

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(port: number, deliveries: Delivery[], concurrency: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
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
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2));
  return { rps: Math.round(deliveries.length / seconds), p50: pct(0.5), p99: pct(0.99), errors };
}

function startServer(mode: "full" | "bare", redisUrl: string, key: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", serverEntry, mode, redisUrl, SECRET, key], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once("exit", (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
}

/** `npm run bench:intake [-- --requests N]`: the whole app against a bare Probot app, same run, same load. */
export async function main(argv: string[]): Promise<void> {
  const nIdx = argv.indexOf("--requests");
  const n = nIdx >= 0 ? Number(argv[nIdx + 1]) : 4000;
  const dataDir = mkdtempSync(join(tmpdir(), "open-swe-bench-"));
  const redis = await startEmbeddedRedis(dataDir, createLogger("silent"));
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const full = await startServer("full", redis.url, key);
  const bare = await startServer("bare", redis.url, key);
  const figures: Record<string, unknown> = { requests: n };
  try {
    for (const concurrency of [10, 50]) {
      const warm = await makeDeliveries(300);
      await load(bare.port, warm.slice(0, 150), concurrency);
      await load(full.port, warm.slice(150), concurrency);
      // Alternate halves so drift on the machine hits both sides alike.
      const half = Math.floor(n / 2);
      const b1 = await load(bare.port, await makeDeliveries(half), concurrency);
      const f1 = await load(full.port, await makeDeliveries(half), concurrency);
      const f2 = await load(full.port, await makeDeliveries(half), concurrency);
      const b2 = await load(bare.port, await makeDeliveries(half), concurrency);
      const merge = (a: Result, b: Result): Result => ({ rps: Math.round((a.rps + b.rps) / 2), p50: (a.p50 + b.p50) / 2, p99: Math.max(a.p99, b.p99), errors: a.errors + b.errors });
      const bareR = merge(b1, b2);
      const fullR = merge(f1, f2);
      const ratio = Number((fullR.rps / bareR.rps).toFixed(3));
      console.log(`concurrency ${concurrency}: bare probot ${bareR.rps} req/s p50 ${bareR.p50.toFixed(2)} ms p99 ${bareR.p99} ms | open-swe ${fullR.rps} req/s p50 ${fullR.p50.toFixed(2)} ms p99 ${fullR.p99} ms | ratio ${ratio}`);
      figures[`c${concurrency}`] = { bare: bareR, full: fullR, ratio };
    }
  } finally {
    full.child.kill("SIGKILL");
    bare.child.kill("SIGKILL");
    await redis.stop();
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ bench: "intake", ...figures }));
}
