import { testSigner } from "../helpers/job-signer.js";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { QueueSet } from "../../src/queue/queues.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { connectRedis, type RedisTarget } from "../../src/store/redis.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { fixtureArgs } from "../helpers/fixture-command.js";
import { ROOT } from "../helpers/paths.js";

// Slow (~40 s): a real master, a replica and three redis-sentinel processes; the master is killed while a
// worker process is busy. Counters live on the suite's own Redis, out of the failover's reach.
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A connection that gives up at once (a probe), never an unhandled error event. */
function probe(port: number): Redis {
  const r = new Redis({ host: "127.0.0.1", port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  r.on("error", () => undefined);
  return r;
}

/**
 * A redis-server (`--sentinel` too) of this test on a port nobody else holds: a free port can be taken by
 * another process before the server binds it (then the server exits, or the port answers with another
 * process id), and the topology would silently include a stranger. Such a start is retried on a new port.
 */
async function startRedis(args: (port: number) => string[]): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn("redis-server", args(port), { stdio: "ignore" });
    children.push(child);
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    const answers = async () => {
      const r = probe(port);
      try {
        await r.connect();
        return Number(/process_id:(\d+)/.exec(await r.info("server"))?.[1]) === child.pid;
      } finally {
        r.disconnect();
      }
    };
    await until(async () => exited() || (await answers()), 10_000, `redis-server on port ${port} answering`);
    if (!exited()) return { child, port };
    if (attempt === 3) throw new Error(`redis-server exited at start on 3 ports (${args(port).join(" ")})`);
  }
}

/** A sentinel's table (`SENTINEL REPLICAS` / `SENTINELS` rows: flat name-value lists) as objects. */
const rows = (reply: unknown) => (reply as string[][]).map((flat) => Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : []))) as Record<string, string>);
const healthy = (row: Record<string, string>) => !/s_down|o_down|disconnected/.test(row.flags ?? "");

describe("Redis Sentinel", () => {
  it("the master killed mid-work: the sentinels promote the replica, the worker follows, every job completes and none is lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "osw-sentinel-"));
    const common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
    const { child: master, port: masterPort } = await startRedis((port) => ["--port", String(port), ...common, "--dbfilename", "m.rdb"]);
    const { port: replicaPort } = await startRedis((port) => ["--port", String(port), ...common, "--dbfilename", "r.rdb", "--replicaof", "127.0.0.1", String(masterPort)]);
    const replica = connectRedis(`redis://127.0.0.1:${replicaPort}`);
    await until(async () => /master_link_status:up/.test(await replica.info("replication")), 15_000, "replica in sync");
    // A sentinel learns of replicas only from the master's INFO: once at connect, then every 10 s. Started before
    // the replica had attached, a sentinel could miss it, and a master killed within those 10 s was never
    // failed over (-failover-abort-no-good-slave, retried forever). So the sentinels start after the replica is
    // in sync, and the master dies only once every sentinel lists the replica as healthy and knows both others.
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const conf = join(dir, `sentinel-${i}.conf`);
      const { port } = await startRedis((p) => {
        writeFileSync(
          conf,
          [
            `port ${p}`,
            "bind 127.0.0.1",
            `dir ${dir}`,
            `sentinel monitor mymaster 127.0.0.1 ${masterPort} 2`,
            "sentinel down-after-milliseconds mymaster 1000",
            "sentinel failover-timeout mymaster 5000",
            "sentinel parallel-syncs mymaster 1",
            "",
          ].join("\n"),
        );
        return [conf, "--sentinel"];
      });
      sentinelPorts.push(port);
    }
    const sentinels = sentinelPorts.map((port) => connectRedis(`redis://127.0.0.1:${port}`));
    const sentinel = sentinels[0]!;
    const ready = async (s: Redis) =>
      rows(await s.call("SENTINEL", "REPLICAS", "mymaster")).some((r) => r.port === String(replicaPort) && healthy(r) && r["master-link-status"] === "ok") &&
      rows(await s.call("SENTINEL", "SENTINELS", "mymaster")).filter(healthy).length === 2;
    await until(async () => (await Promise.all(sentinels.map(ready))).every(Boolean), 30_000, "every sentinel knows the replica and the other two");

    const target: RedisTarget = { sentinels: sentinelPorts.map((port) => ({ host: "127.0.0.1", port })), name: "mymaster", tls: false };
    const prefix = uniquePrefix();
    const counters = testRedis();
    const worker = spawn(process.execPath, [...(await fixtureArgs(join(ROOT, "test/fixtures/scale-worker.ts"))), JSON.stringify(target), prefix, "w", "200", redisUrl()], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(worker);
    await new Promise<void>((resolve, reject) => {
      worker.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
      worker.once("exit", (code) => reject(new Error(`worker exited early (${code})`)));
    });
    const queueRedis = connectRedis(target);
    const queues = new QueueSet({ connection: queueRedis, prefix, attempts: 5, signer: testSigner() });
    const ids = Array.from({ length: 40 }, (_, i) => `f${i}`);
    for (const id of ids)
      await queues.add("cleanup", { installationId: 1, owner: "o", repo: "r", number: 1, threadIds: [randomUUID()], merged: false, deliveryId: id }, deliveryJobId(id), { via: "github-webhook" });
    // Wait for every add to reach the replica, then kill the master mid-work.
    await until(async () => (await replica.exists(`${prefix}:cleanup:${deliveryJobId("f39")}`)) === 1, 10_000, "jobs replicated");
    await until(async () => (await counters.hlen(`${prefix}:completed`)) >= 8, 20_000, "work under way");
    const killedAt = Date.now();
    master.kill("SIGKILL");
    await until(async () => Number(((await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")) as string[])[1]) === replicaPort, 60_000, "replica promoted");
    const promotedMs = Date.now() - killedAt;
    await until(async () => (await counters.hlen(`${prefix}:completed`)) === ids.length, 30_000, "every job completed");
    const counts = Object.values(await counters.hgetall(`${prefix}:completed`)).map(Number);
    console.log(`sentinel failover: replica promoted ${promotedMs} ms after the master died; all ${ids.length} jobs completed, ${counts.filter((n) => n > 1).length} ran twice`);
    expect(counts).toHaveLength(ids.length);
    // The jobs' own states on the promoted master: each completed, none lost.
    await until(async () => (await queues.queues.cleanup.getCompletedCount()) === ids.length, 15_000, "completed on the new master");
    worker.kill("SIGKILL");
    await queues.close();
    for (const c of [replica, ...sentinels, queueRedis]) c.disconnect();
  }, 150_000);
});
