import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { HOST_QUEUES, hostAliveKey, hostQueueName, hostsKey } from "../queue/host-routes.js";
import type { QueueSet } from "../queue/queues.js";
import { redisNowMs } from "../shared/redis-time.js";

export interface HostPresenceOptions {
  redis: Redis;
  queues: QueueSet;
  prefix: string;
  hostId: string;
  /** The liveness key's lifetime: a host silent this long is dead and its threads' jobs go to the shared queue. */
  aliveMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  log: Logger;
}

export interface HostPresence {
  stop(): Promise<void>;
}

/**
 * This host's liveness (a Redis key holding Redis's time, refreshed every third of its lifetime) and the
 * rescue of dead hosts' queues: jobs routed to a host that died before taking them, or that it was running
 * when it died (once their lock lapses), are moved to the shared queue, where any worker runs them and
 * finds the thread's sandbox gone (the run says its workspace was lost).
 */
export async function startHostPresence(opts: HostPresenceOptions): Promise<HostPresence> {
  const { redis, prefix, hostId, log } = opts;
  const forwarders = new Map<string, Worker[]>();
  const beat = async () => {
    await redis.set(hostAliveKey(prefix, hostId), String(await redisNowMs(redis)), "PX", opts.aliveMs);
    await redis.sadd(hostsKey(prefix), hostId);
  };
  const rescue = async () => {
    for (const host of await redis.smembers(hostsKey(prefix))) {
      if (host === hostId) continue;
      const alive = (await redis.exists(hostAliveKey(prefix, host))) === 1;
      const running = forwarders.get(host);
      if (alive && running) {
        forwarders.delete(host);
        await Promise.all(running.map((w) => w.close()));
      } else if (!alive && !running) {
        forwarders.set(host, HOST_QUEUES.map((name) => forwarder(name, host)));
      }
    }
  };
  const forwarder = (name: (typeof HOST_QUEUES)[number], host: string) => {
    const worker = new Worker(
      hostQueueName(name, host),
      async (job) => {
        await opts.queues.moveToShared(name, job);
        log.warn({ queue: name, jobId: job.id, host }, "a job routed to a host that is gone: moved to the shared queue");
        return { outcome: "moved_to_shared" };
      },
      { connection: opts.queues.connection, prefix, concurrency: 4, lockDuration: opts.lockDurationMs, stalledInterval: opts.stalledIntervalMs },
    );
    worker.on("error", (err) => log.debug({ host, err: err.message }, "dead host's queue"));
    return worker;
  };
  const tick = () =>
    void beat()
      .then(rescue)
      .catch((err: unknown) => log.warn({ err: String(err) }, "host liveness not refreshed"));
  await beat();
  await rescue();
  const timer = setInterval(tick, Math.max(200, Math.floor(opts.aliveMs / 3)));
  timer.unref();
  log.info({ hostId, aliveMs: opts.aliveMs }, "local sandbox host registered: its threads' jobs are routed here");
  return {
    async stop() {
      clearInterval(timer);
      // The liveness key is left to expire: a restart on this disk within its lifetime keeps its threads here.
      await Promise.all([...forwarders.values()].flat().map((w) => w.close()));
      forwarders.clear();
    },
  };
}
