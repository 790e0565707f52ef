import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { createApp } from "./app.js";
import { ConfigError, type AppConfig } from "./config/env.js";
import { createGitHubAuth, type GitHubAuthOptions } from "./github/app-auth.js";
import { rateLimitedLog } from "./logger.js";
import { missingSandboxKeys, startupSummary } from "./startup-summary.js";
import { startHealthServer } from "./http/health-server.js";
import { isProduction } from "./http/metrics-access.js";
import { startWebServer, type WebServer } from "./http/web-server.js";
import { applySetupInstallations } from "./setup/setup-installations.js";
import type { QueueName } from "./queue/names.js";
import { QueueSet } from "./queue/queues.js";
import { JobSigner } from "./queue/job-provenance.js";
import { startEmbeddedRedis, type EmbeddedRedis } from "./store/embedded-redis.js";
import { makeDataDirsPrivate } from "./store/private-data-dirs.js";
import { connectRedis } from "./store/redis.js";
import { IntakeStream } from "./queue/intake-stream.js";
import { IntakePump } from "./queue/intake-pump.js";
import { checkClock } from "./store/redis-clock.js";
import { evictionProblem, readEvictionPolicy } from "./store/eviction-policy.js";
import { SettingsStore } from "./store/settings-store.js";
import { FollowUpQueue } from "./threads/follow-ups.js";
import { PrThreads } from "./store/pr-threads.js";
import { RunLocks } from "./threads/run-lock.js";
import { startWorkers, type StartWorkersOptions, type WorkerPool } from "./worker/start-workers.js";
import { PROCESSORS } from "../jobs/index.js";
import { startHostPresence, type HostPresence } from "./worker/host-presence.js";
import { readHostId, workerInstanceId } from "./sandbox/host-id.js";
import { scheduleSandboxSweep } from "../jobs/cleanup.js";
import { scheduleCiMonitor } from "./autofix/ci-monitor.js";
import { scheduleReconcile } from "./runs/reconcile.js";
import { scheduleInstallationSync } from "./github/sync-installations.js";
import { createAgentRuntime } from "./runs/agent-runtime.js";
import { checkSandboxIsolation } from "./sandbox/preflight.js";
import { readBuildInfo } from "./shared/build-info.js";
import { buildInfo } from "./observability/metrics.js";
import { spawner } from "./sandbox/spawner.js";
import { buildSourceRegistry } from "./sources/registry.js";
import type { Source } from "./sources/source.js";

export type Role = "web" | "worker" | "all";

/** The intake stream's connection: auto-pipelined, so the XADDs of one event-loop turn share a write. */
const INTAKE_CONNECTION = { enableAutoPipelining: true, connectionName: "open-swe-intake" } as const;

/** How this process runs: compiled (dist/, `.js`) or from the sources through tsx (`.ts`). */
const RUNTIME = import.meta.url.endsWith(".ts") ? "tsx" : "dist";

export interface RunningProcess {
  role: Role;
  port: number | null;
  /** Where GET /health answers: the web port, or a worker's HEALTH_PORT listener. */
  healthPort: number | null;
  redis: Redis;
  queues: QueueSet;
  stop(): Promise<void>;
}

export interface StartOptions {
  role: Role;
  config: AppConfig;
  log: Logger;
  port?: number;
  host?: string;
  /** For tests: Octokit without retries/throttling. */
  octokitDefaults?: GitHubAuthOptions["octokitDefaults"];
  /** For tests: sources added to (or replacing) the ones built from config. */
  sources?: Source[];
  /** For tests: only these queues get workers (the rest stay waiting, to be inspected). */
  queues?: readonly QueueName[];
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | "timeout"> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]).finally(() => clearTimeout(timer));
};

/** Starts the web role, the worker role, or both, on one Redis connection; `stop` is the graceful path. */
export async function startProcess(opts: StartOptions): Promise<RunningProcess> {
  const { config, log, role } = opts;
  if (!config.github) throw new Error("startProcess needs GitHub App credentials; without them run the setup flow");
  const build = readBuildInfo(config.env.OPEN_SWE_COMMIT);
  buildInfo.set({ version: build.version, commit: build.commit ?? "", node: build.node }, 1);
  await makeDataDirsPrivate(config);
  let sandboxIsolation: { ok: boolean; detail?: string; reason?: string } | undefined;
  if (role !== "web") {
    // Every host process of a run (git, bwrap, mount) is forked by the spawner: up before any is needed.
    spawner().start();
    const missing = missingSandboxKeys(config.sandbox)
      .filter((m) => m.required)
      .map((m) => m.key);
    if (missing.length > 0) throw new ConfigError(`missing ${missing.join(", ")}: SANDBOX_TYPE=${config.sandbox.type} needs it for every run (or set SANDBOX_TYPE=local)`);
    // Never run a sandbox command with less isolation than configured: refuse to start instead.
    const isolation = await checkSandboxIsolation(config.sandbox);
    if (!isolation.ok) throw new ConfigError(`cannot isolate sandboxes: ${isolation.reason}`);
    log.info({ isolation: isolation.detail }, "sandbox isolation checked");
    sandboxIsolation = isolation;
  }
  let embedded: EmbeddedRedis | null = null;
  const target = config.redis ?? (embedded = await startEmbeddedRedis(config.dataDir, log)).url;
  const redis = connectRedis(target, { connectionName: `open-swe-${role}` });
  const redisError = rateLimitedLog(log, "redis connection error");
  redis.on("error", (err) => redisError({ err: err.message }));
  // BullMQ needs a Redis that never evicts: said once at start-up, in one line.
  const eviction = evictionProblem(await readEvictionPolicy(redis).catch(() => null));
  if (eviction) log.warn(eviction);
  const prefix = config.env.QUEUE_PREFIX;
  const queueError = rateLimitedLog(log, "queue error");
  // BullMQ defines its ~60 Lua scripts on the connection it is given, and ioredis copies every defined
  // script onto each MULTI it builds: the stores' transactions (a checkpoint per graph step) get a
  // connection of their own without them.
  // A web process's queue connection only adds and counts: it sends the commands of one event-loop turn
  // in one write, so concurrent webhooks share a round trip. Never a worker's (BullMQ blocks on a copy of it).
  const queueConnection = role === "web" ? redis.duplicate({ enableAutoPipelining: true }) : redis.duplicate();
  queueConnection.on("error", (err) => redisError({ err: err.message }));
  const signer = JobSigner.fromEnv(config.env);
  const queues = new QueueSet({
    connection: queueConnection,
    prefix,
    attempts: config.env.JOB_ATTEMPTS,
    signer,
    onError: (err, queue) => queueError({ err: err.message, queue }),
  });
  const settings = new SettingsStore(redis, prefix);
  const prThreads = new PrThreads(redis, prefix, signer, log);
  const sources = buildSourceRegistry(config, opts.sources, { redis });
  await applySetupInstallations(config.dataDir, settings, log);

  // Delays and schedules are stamped with Redis's time, but BullMQ promotes delayed jobs and steps its
  // schedulers on the worker's own clock: a worker too far off Redis's refuses to start.
  const stopClockWatch =
    role === "web"
      ? () => undefined
      : await checkClock(redis, log).catch(async (err: unknown) => {
          for (const conn of [queueConnection, redis]) conn.disconnect();
          if (embedded?.owned) await within(embedded.stop(), 2_000);
          throw err;
        });
  // WEBHOOK_INTAKE=stream: the XADDs get a connection of their own. The queue connection carries BullMQ's
  // scripts, and ioredis copies every one onto each auto-pipeline it builds (~10 µs a webhook).
  let intakeConnection: Redis | null = null;
  if ((role === "web" || role === "all") && config.env.WEBHOOK_INTAKE === "stream") {
    intakeConnection = redis.duplicate(INTAKE_CONNECTION);
    intakeConnection.on("error", (err) => redisError({ err: err.message }));
  }
  let web: WebServer | null = null;
  let pool: WorkerPool | null = null;
  let presence: HostPresence | null = null;
  let pump: IntakePump | null = null;
  if (role === "web" || role === "all") {
    web = await startWebServer({
      config,
      github: config.github,
      app: createApp({ config, queues, intake: intakeConnection ? new IntakeStream(intakeConnection, prefix, queues.signer) : queues, settings, prThreads, log }),
      redis,
      dashboard: { queues, settings, github: createGitHubAuth(config.github, { log, ...(opts.octokitDefaults ? { octokitDefaults: opts.octokitDefaults } : {}) }) },
      role,
      log,
      sources: { registry: sources, queues },
      queues,
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.host !== undefined ? { host: opts.host } : {}),
    });
  }
  if (role === "worker" || role === "all") {
    // Local sandboxes live on this host's disk: its threads' jobs are routed to it (src/queue/host-routes.ts).
    const hostId = config.sandbox.type === "local" ? await readHostId(config.sandbox.root) : undefined;
    if (hostId) {
      const env = config.env;
      // First: a second live instance on this sandbox directory refuses to start (HostInUseError, one line).
      presence = await startHostPresence({
        redis,
        queues,
        prefix,
        hostId,
        instanceId: await workerInstanceId(),
        aliveMs: env.HOST_ALIVE_MS,
        lockDurationMs: env.QUEUE_LOCK_DURATION_MS,
        stalledIntervalMs: env.QUEUE_STALLED_INTERVAL_MS,
        log,
      }).catch(async (err: unknown) => {
        stopClockWatch();
        await within(web?.close() ?? Promise.resolve(), 2_000);
        await within(queues.close(), 1_000);
        for (const conn of [queueConnection, redis, intakeConnection]) conn?.disconnect();
        if (embedded?.owned) await within(embedded.stop(), 2_000);
        throw err;
      });
    }
    pool = await startWorkers({
      services: {
        config,
        redis,
        prefix,
        github: createGitHubAuth(config.github, { log, ...(opts.octokitDefaults ? { octokitDefaults: opts.octokitDefaults } : {}) }),
        settings,
        locks: new RunLocks(redis, prefix, config.env.RUN_LOCK_SECONDS * 1000),
        followUps: new FollowUpQueue(redis, prefix, config.env.FOLLOW_UP_CAP, queues.signer, log),
        prThreads,
        queues,
        sources,
        runtime: createAgentRuntime(config, redis, prefix, hostId),
      },
      log,
      concurrency: config.env.WORKER_CONCURRENCY,
      ...(opts.queues ? { queues: opts.queues } : {}),
      processors: PROCESSORS as StartWorkersOptions["processors"],
    });
    // Every worker pumps the intake streams (whatever this process's WEBHOOK_INTAKE: the web tier's decides).
    const pumpConnection = redis.duplicate();
    pumpConnection.on("error", (err) => redisError({ err: err.message }));
    pump = new IntakePump({ connection: pumpConnection, queues, prefix, log });
    pump.start();
    await scheduleSandboxSweep(queues, config.sandbox, hostId);
    await scheduleCiMonitor(queues, config.env.CI_MONITOR_EVERY_SECONDS);
    await scheduleReconcile(queues);
    await scheduleInstallationSync(queues);
  }
  let health: { port: number; close(): Promise<void> } | null = null;
  if (role === "worker" && config.env.HEALTH_PORT !== undefined && pool) {
    const workers = pool.workers;
    health = await startHealthServer({
      redis,
      role,
      port: config.env.HEALTH_PORT,
      host: opts.host ?? config.env.HOST,
      check: () => (workers.every((w) => w.isRunning()) ? null : "a queue worker has stopped"),
      metricsToken: config.env.METRICS_TOKEN,
      production: isProduction(config.env),
      queueCacheMs: config.env.METRICS_QUEUE_CACHE_SECONDS * 1000,
      queues,
    });
  }
  const summary = startupSummary({
    role,
    config,
    build,
    redis: config.redis ? ("sentinels" in config.redis ? "sentinel" : "external") : embedded?.owned ? "embedded" : "embedded (shared)",
    port: web?.port ?? null,
    runtime: RUNTIME,
    sources: [...sources.values()],
    ...(sandboxIsolation ? { sandboxIsolation } : {}),
  });
  for (const line of summary.lines) log.info({ role: line.role, ...line.fields }, `${line.role} role started`);
  if (summary.dashboard) log.info({ url: summary.dashboard.url, signIn: summary.dashboard.signIn }, summary.dashboard.message);
  for (const w of summary.warnings) log.warn({ key: w.key }, w.message);
  let stopping: Promise<void> | null = null;
  return {
    role,
    port: web?.port ?? null,
    healthPort: web?.port ?? health?.port ?? null,
    redis,
    queues,
    stop: () =>
      (stopping ??= (async () => {
        log.info({ role }, "shutting down");
        stopClockWatch();
        // Every step is bounded: with Redis down, BullMQ and ioredis calls would otherwise wait forever.
        await within(web?.close() ?? Promise.resolve(), 2_000);
        await within(health?.close() ?? Promise.resolve(), 1_000);
        // The pump stops beside the pool: each bounded step here counts against grace + 5 s.
        await Promise.all([within(pump?.stop() ?? Promise.resolve(), 1_000), pool?.close(config.env.SHUTDOWN_GRACE_SECONDS * 1000)]);
        await within(presence?.stop() ?? Promise.resolve(), 1_000);
        await within(queues.close(), 1_000);
        for (const conn of [queueConnection, redis, ...(intakeConnection ? [intakeConnection] : [])])
          if (
            (await within(
              conn.quit().catch(() => "failed" as const),
              500,
            )) !== "OK"
          )
            conn.disconnect();
        if (embedded?.owned) await within(embedded.stop(), 2_000);
        log.info({ role }, "stopped");
      })()),
  };
}
