import { testSigner } from "../helpers/job-signer.js";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

function redisProcess(args: string[]): ChildProcess {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  children.push(child);
  return child;
}

describe("Redis Sentinel", () => {
  it("the master killed mid-work: the sentinels promote the replica, the worker follows, every job completes and none is lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "osw-sentinel-"));
    const [masterPort, replicaPort, ...sentinelPorts] = (await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])) as [number, number, number, number, number];
    const common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
    const master = redisProcess(["--port", String(masterPort), ...common, "--dbfilename", "m.rdb"]);
    redisProcess(["--port", String(replicaPort), ...common, "--dbfilename", "r.rdb", "--replicaof", "127.0.0.1", String(masterPort)]);
    for (const [i, port] of sentinelPorts.entries()) {
      const conf = join(dir, `sentinel-${i}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `sentinel monitor mymaster 127.0.0.1 ${masterPort} 2`,
          "sentinel down-after-milliseconds mymaster 1000",
          "sentinel failover-timeout mymaster 5000",
          "sentinel parallel-syncs mymaster 1",
          "",
        ].join("\n"),
      );
      redisProcess([conf, "--sentinel"]);
    }
    const replica = connectRedis(`redis://127.0.0.1:${replicaPort}`);
    await until(async () => /master_link_status:up/.test(await replica.info("replication")), 15_000, "replica in sync");
    const sentinel = connectRedis(`redis://127.0.0.1:${sentinelPorts[0]}`);
    await until(async () => /num-other-sentinels\s*\n?2|"num-other-sentinels","2"/.test(JSON.stringify(await sentinel.call("SENTINEL", "MASTER", "mymaster"))), 15_000, "sentinels know each other");

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
    for (const c of [replica, sentinel, queueRedis]) c.disconnect();
  }, 150_000);
});
