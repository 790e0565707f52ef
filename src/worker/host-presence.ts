import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { HOST_QUEUES, hostAliveKey, hostQueueName, hostsKey } from "../queue/host-routes.js";
import type { QueueSet } from "../queue/queues.js";
import { redisNowMs } from "../shared/redis-time.js";
import { OpenSweError } from "../errors.js";
import { processAlive } from "../sandbox/host-id.js";

/** Another live worker instance uses this host's sandbox directory (a shared DATA_DIR): this one refuses to start. */
export class HostInUseError extends OpenSweError<"host_in_use"> {
  constructor(message: string) {
    super("host_in_use", message);
  }
}

/** Which worker instance uses the host's disk now; kept alive like the liveness key. */
function hostOwnerKey(prefix: string, hostId: string): string {
  return `${prefix}:host:${hostId}:owner`;
}

// KEYS: the owner key. ARGV: this instance, lifetime (ms). Ours or free → ours; another's → its name.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return '' end
return v`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end return 0`;
// KEYS: the owner key. ARGV: the dead holder, this instance, lifetime (ms).
const TAKE_OVER = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end return 0`;

/** The holder is a process of this very machine and boot that no longer exists (pure but for the pid probe). */
export function holderIsDeadHere(holder: string, me: string, pidAlive: (pid: number) => boolean = processAlive): boolean {
  const [host, boot, pid] = holder.split("/");
  const [myHost, myBoot] = me.split("/");
  return host === myHost && boot === myBoot && Number.isInteger(Number(pid)) && !pidAlive(Number(pid));
}

export interface HostPresenceOptions {
  redis: Redis;
  queues: QueueSet;
  prefix: string;
  hostId: string;
  /** This process (`workerInstanceId`): the one instance that may mount and use the host's sandboxes. */
  instanceId: string;
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
  const owner = hostOwnerKey(prefix, hostId);
  const claim = async () => (await redis.eval(CLAIM, 1, owner, opts.instanceId, String(opts.aliveMs))) as string;
  // Two instances on one sandbox directory would mount one overlay twice and unlink each other's sockets.
  let holder = await claim();
  // A worker of this machine that died (kill -9, then restarted as another pid) is taken over at once.
  if (holder !== "" && holderIsDeadHere(holder, opts.instanceId) && (await redis.eval(TAKE_OVER, 1, owner, holder, opts.instanceId, String(opts.aliveMs))) === 1) {
    log.warn({ hostId, dead: holder }, "this host's sandbox directory was claimed by a worker process that is gone: taken over");
    holder = "";
  }
  if (holder !== "") {
    throw new HostInUseError(
      `the sandbox directory of host ${hostId} is in use by another live worker instance (${holder}): give each worker its own DATA_DIR (compose: its own volume); a dead one's claim lapses within ${opts.aliveMs} ms`,
    );
  }
  let usurped = false;
  const beat = async () => {
    const other = await claim();
    if (other !== "" && !usurped) log.error({ hostId, other }, "another worker instance took this host's sandbox directory while this one was silent: this one should be stopped");
    usurped = other !== "";
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
        forwarders.set(
          host,
          HOST_QUEUES.map((name) => forwarder(name, host)),
        );
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
      // With Redis gone, the claim simply lapses: never wait on a dead connection during shutdown.
      if (redis.status !== "ready") return;
      // The liveness key is left to expire: a restart on this disk within its lifetime keeps its threads here.
      await Promise.all([...forwarders.values()].flat().map((w) => w.close()));
      forwarders.clear();
      // A restart on this disk may start at once; the next instance claims the directory.
      await redis.eval(RELEASE, 1, owner, opts.instanceId);
    },
  };
}
