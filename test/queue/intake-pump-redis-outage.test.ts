import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Worker } from "bullmq";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { INTAKE_GROUP, intakeStreamKey } from "../../src/queue/intake-keys.js";
import { IntakePump } from "../../src/queue/intake-pump.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { QueueSet } from "../../src/queue/queues.js";
import { connectRedis } from "../../src/store/redis.js";
import { issueCommentPayload, sendWebhook, WEBHOOK_SECRET } from "../helpers/github-app.js";
import { testSigner } from "../helpers/job-signer.js";
import { uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

/**
 * A redis-server of this test's own, AOF fsynced on every write, on a unix socket in its own directory:
 * killed and started again on the same files, it comes back with every entry and job it acknowledged.
 */
class RestartableRedis {
  readonly dir = mkdtempSync(join(tmpdir(), "osw-intake-redis-"));
  readonly socket = join(this.dir, "redis.sock");
  readonly url = `unix:${this.socket}`;
  child: ChildProcess | null = null;

  async start(): Promise<void> {
    rmSync(this.socket, { force: true });
    const args = ["--port", "0", "--unixsocket", this.socket, "--unixsocketperm", "700", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", this.dir];
    const child = spawn("redis-server", args, { stdio: "ignore" });
    this.child = child;
    for (let i = 0; !existsSync(this.socket); i++) {
      if (child.exitCode !== null || i > 400) throw new Error("redis-server did not start");
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  kill(): Promise<void> {
    const child = this.child;
    return new Promise((resolve) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Real redis-server, real web process (default WEBHOOK_INTAKE=stream), two real pumps, a BullMQ worker.
describe("the intake pump while Redis itself stops", () => {
  const redis = new RestartableRedis();
  const prefix = uniquePrefix();
  const stream = intakeStreamKey(prefix, "agent");
  let web: RunningProcess;
  let queues: QueueSet;
  let worker: Worker | undefined;
  const pumps: IntakePump[] = [];
  /** Runs per job id: each must be exactly 1. */
  const runs = new Map<string, number>();
  /** Called by the first pump between adding a batch's jobs and acknowledging its entries. */
  let inTheWindow: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    await redis.start();
    web = await startTestProcess("web", { QUEUE_REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
    queues = new QueueSet({ connection: connectRedis(redis.url), prefix, attempts: 1, signer: testSigner() });
    queues.connection.on("error", () => {});
    const log = pino({ level: "silent" });
    for (const first of [true, false]) {
      const connection = connectRedis(redis.url);
      connection.on("error", () => {});
      const pump = new IntakePump({
        connection,
        queues,
        prefix,
        log,
        claimIdleMs: 500,
        batch: 5,
        ...(first
          ? {
              afterAdd: async () => {
                const act = inTheWindow;
                inTheWindow = null;
                await act?.();
              },
            }
          : {}),
      });
      pumps.push(pump);
      pump.start();
    }
  });
  afterAll(async () => {
    redis.child?.kill("SIGCONT");
    await Promise.all(pumps.map((p) => p.stop()));
    await worker?.close(true);
    await queues?.close();
    queues?.connection.disconnect();
    await web?.stop();
    await redis.kill();
    rmSync(redis.dir, { recursive: true, force: true });
  });

  const deliver = async (from: number, count: number): Promise<string[]> =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const n = from + i;
        const res = await sendWebhook(web.port!, {
          event: "issue_comment",
          payload: issueCommentPayload({ installationId: 1, number: n, issueId: 5000 + n, commentId: n, body: `@open-swe fix ${n}` }),
        });
        expect(res.status).toBe(200);
        return deliveryJobId(res.deliveryId);
      }),
    );

  /** Runs `act` in the first pump's next add-to-acknowledge window; resolves with the entries pending then, once `act` is done. */
  const inNextWindow = (act: () => Promise<void>) =>
    new Promise<number>((resolve, reject) => {
      inTheWindow = async () => {
        try {
          const [pending] = (await queues.connection.xpending(stream, INTAKE_GROUP)) as [number];
          await act();
          resolve(pending);
        } catch (err) {
          reject(err as Error);
        }
      };
    });

  /** The stream is empty and nothing is pending in the group: every entry has been moved and acknowledged. */
  const drained = () => expect.poll(async () => [await queues.connection.xlen(stream), (await queues.connection.xpending(stream, INTAKE_GROUP))[0]], { timeout: 20_000 }).toEqual([0, 0]);

  it("Redis killed between a batch's add and its acknowledgement, restarted on its files: no entry lost, none doubled", async () => {
    const window = inNextWindow(async () => {
      await redis.kill();
      await sleep(300);
      await redis.start();
    });
    const ids = await deliver(1, 20);
    // The window came while entries were pending: the batch being moved at least.
    expect(await window).toBeGreaterThan(0);
    await drained();
    // One job per delivery (a re-added entry lands on its job's id), each signed as the web tier's.
    for (const id of ids) expect(queues.signer.verify("agent", id, (await queues.findJob("agent", id))?.data, Date.now()).ok, id).toBe(true);
    expect(await queues.jobCounts("agent", ["waiting", "active", "completed", "failed"])).toEqual({ waiting: ids.length, active: 0, completed: 0, failed: 0 });
    // The web tier is back too: a webhook after the restart is one job like any other.
    const after = await deliver(101, 5);
    await drained();
    expect((await queues.jobCounts("agent", ["waiting"])).waiting).toBe(ids.length + after.length);
    earlier.push(...ids, ...after);
  });

  const earlier: string[] = [];

  it("Redis frozen (SIGSTOP) past the claim time with a batch added but not acknowledged: every entry becomes one job, run once", async () => {
    const workerConnection = connectRedis(redis.url);
    workerConnection.on("error", () => {});
    worker = new Worker(
      "agent",
      async (job) => {
        if (!queues.signer.verify("agent", job.id!, job.data, Date.now()).ok) throw new Error("unsigned");
        runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
      },
      { connection: workerConnection, prefix },
    );
    worker.on("error", () => {});
    const window = inNextWindow(async () => {
      redis.child!.kill("SIGSTOP");
      // Longer than claimIdleMs: on waking, the other pump may claim the same entries and add them again.
      setTimeout(() => redis.child!.kill("SIGCONT"), 1_500);
    });
    const ids = [...earlier, ...(await deliver(201, 20))];
    expect(await window).toBeGreaterThan(0);
    await drained();
    await expect.poll(() => ids.filter((id) => runs.get(id) === 1).length, { timeout: 20_000, interval: 100 }).toBe(ids.length);
    // Claims after the freeze re-add entries whose jobs already ran (same ids): none may run again.
    await sleep(1_500);
    expect([...runs.values()].filter((n) => n !== 1)).toEqual([]);
    expect(runs.size).toBe(ids.length);
    expect((await queues.jobCounts("agent", ["completed"])).completed).toBe(ids.length);
  });
});

const ROOT = resolve(import.meta.dirname, "../..");

// As a deployment runs it, nothing pumping in this test's process: one worker's pump process dies holding a batch it
// added but never acknowledged, in the same moment its Redis is killed; Redis restarts on its files and two other
// pump processes (two workers) take over, while GitHub redelivers what got no 2xx.
describe("pump processes while Redis is killed and restarted and a pump dies with it", () => {
  const redis = new RestartableRedis();
  const prefix = uniquePrefix();
  const stream = intakeStreamKey(prefix, "agent");
  const children: ChildProcess[] = [];
  let web: RunningProcess;
  let queues: QueueSet;
  let worker: Worker | undefined;
  const runs = new Map<string, number>();

  beforeAll(async () => {
    await redis.start();
    web = await startTestProcess("web", { QUEUE_REDIS_URL: redis.url, QUEUE_PREFIX: prefix });
    queues = new QueueSet({ connection: connectRedis(redis.url), prefix, attempts: 1, signer: testSigner() });
    queues.connection.on("error", () => {});
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await worker?.close(true);
    await queues?.close();
    queues?.connection.disconnect();
    await web?.stop();
    await redis.kill();
    rmSync(redis.dir, { recursive: true, force: true });
  });

  it("every delivery becomes one job, run once; nothing is left pending", async () => {
    const startPump = async (fixture: string, until: string): Promise<{ child: ChildProcess; line: string }> => {
      const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test/queue/fixtures", fixture), redis.url, prefix, WEBHOOK_SECRET], {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(child);
      const line = await new Promise<string>((ok, fail) => {
        let buf = "";
        child.stdout!.on("data", (d: Buffer) => {
          buf += d.toString();
          const found = buf.split("\n").find((l) => l.startsWith(until));
          if (found) ok(found);
        });
        child.once("exit", (code) => fail(new Error(`pump process exited (${code}) before "${until}"`)));
      });
      return { child, line };
    };
    // GitHub's side: a delivery that got no 2xx is delivered again, same delivery id, until it is.
    const deliver = async (n: number): Promise<string> => {
      const deliveryId = randomUUID();
      for (let attempt = 0; ; attempt++) {
        const res = await sendWebhook(web.port!, {
          deliveryId,
          event: "issue_comment",
          payload: issueCommentPayload({ installationId: 1, number: 300 + n, issueId: 6300 + n, commentId: 300 + n, body: `@open-swe fix ${n}` }),
        }).catch(() => null);
        if (res?.status === 200) return deliveryJobId(res.deliveryId);
        if (attempt > 100) throw new Error(`delivery ${n} never accepted`);
        await sleep(100);
      }
    };
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push(await deliver(n));
    // The first pump adds a batch and then hangs before acknowledging it (test/queue/fixtures/pump-until-added.mts).
    const first = startPump("pump-until-added.mts", "added ");
    const held = (await first).line.slice("added ".length).split(",");
    expect(held.length).toBeGreaterThan(0);
    // Redis and that pump die together; deliveries go on through the outage.
    const dead = new Promise((r) => (children[0] as ChildProcess).once("exit", r));
    (children[0] as ChildProcess).kill("SIGKILL");
    const outage = (async () => {
      await redis.kill();
      await sleep(300);
      await redis.start();
    })();
    await dead;
    for (let n = 20; n < 40; n++) ids.push(await deliver(n));
    await outage;
    await startPump("pump-process.mts", "consumer ");
    await startPump("pump-process.mts", "consumer ");

    const workerConnection = connectRedis(redis.url);
    workerConnection.on("error", () => {});
    worker = new Worker(
      "agent",
      async (job) => {
        if (!queues.signer.verify("agent", job.id!, job.data, Date.now()).ok) throw new Error("unsigned");
        runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
      },
      { connection: workerConnection, prefix },
    );
    worker.on("error", () => {});
    await expect.poll(async () => [await queues.connection.xlen(stream), (await queues.connection.xpending(stream, INTAKE_GROUP))[0]], { timeout: 20_000 }).toEqual([0, 0]);
    await expect.poll(() => ids.filter((id) => runs.get(id) === 1).length, { timeout: 20_000, interval: 100 }).toBe(ids.length);
    expect([...runs.values()].filter((n) => n !== 1)).toEqual([]);
    expect(runs.size).toBe(ids.length);
    expect(await queues.jobCounts("agent", ["completed", "failed"])).toEqual({ completed: ids.length, failed: 0 });
  });
});
