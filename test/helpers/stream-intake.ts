import pino from "pino";
import type { RunningProcess } from "../../src/main.js";
import { IntakePump } from "../../src/queue/intake-pump.js";
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
