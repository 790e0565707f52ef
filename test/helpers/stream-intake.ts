import pino from "pino";
import type { RunningProcess } from "../../src/main.js";
import { intakeStreamKey } from "../../src/queue/intake-keys.js";
import { IntakePump } from "../../src/queue/intake-pump.js";
import { QUEUE_NAMES } from "../../src/queue/names.js";
import { QueueSet } from "../../src/queue/queues.js";
import { connectRedis } from "../../src/store/redis.js";
import { testSigner } from "./job-signer.js";
import { redisUrl } from "./redis.js";
import { startTestProcess } from "./test-process.js";

/**
 * A real web process with WEBHOOK_INTAKE=stream on the suite's Redis, the worker side's `QueueSet` (same
 * key), and pumps the test starts when it wants them (`pump()`); `stop()` closes all of it.
 */
export async function startStreamIntake(prefix: string): Promise<{ proc: RunningProcess; queues: QueueSet; pump(claimIdleMs?: number): IntakePump; stop(): Promise<void> }> {
  const proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, WEBHOOK_INTAKE: "stream" });
  const queues = new QueueSet({ connection: connectRedis(redisUrl()), prefix, attempts: 1, signer: testSigner() });
  const pumps: IntakePump[] = [];
  return {
    proc,
    queues,
    pump: (claimIdleMs) => {
      const p = new IntakePump({ connection: connectRedis(redisUrl()), queues, prefix, log: pino({ level: "silent" }), ...(claimIdleMs !== undefined ? { claimIdleMs } : {}) });
      pumps.push(p);
      p.start();
      return p;
    },
    stop: async () => {
      for (const p of pumps) await p.stop();
      await queues.close();
      queues.connection.disconnect();
      await proc.stop();
    },
  };
}

/**
 * What a worker runs beside a web-only test process: an intake pump on the process's own queues (the
 * default WEBHOOK_INTAKE=stream puts a webhook's job in a stream before the 2xx, the pump into BullMQ).
 * `drained()` resolves once every intake stream of `prefix` is empty — each entry is a job by then (the
 * pump deletes an entry only after adding its job) — so a count read after it cannot pass vacuously.
 */
export function pumpFor(proc: RunningProcess, prefix: string): { drained(timeoutMs?: number): Promise<void>; stop(): Promise<void> } {
  const pump = new IntakePump({ connection: connectRedis(redisUrl()), queues: proc.queues, prefix, log: pino({ level: "silent" }) });
  pump.start();
  const keys = QUEUE_NAMES.map((q) => intakeStreamKey(prefix, q));
  return {
    drained: async (timeoutMs = 10_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const lengths = await Promise.all(keys.map((k) => proc.redis.xlen(k)));
        if (lengths.every((n) => n === 0)) return;
        if (Date.now() > until) throw new Error(`intake streams not drained within ${timeoutMs} ms: ${keys.filter((_, i) => lengths[i]).join(", ")}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    stop: () => pump.stop(),
  };
}
