import { readConfig, refuseSetupMode, type AppConfig } from "../config/env.js";
import { OpenSweError } from "../errors.js";
import { createLogger, type Logger } from "../logger.js";
import type { Resolved } from "./resolve-command.js";
import type { BenchLoaders, BenchName } from "./commands.js";

type Run = Extract<Resolved, { kind: "run" }>;

const SERVE = new Set(["web", "worker", "all"]);

/** The Redis a one-shot command talks to: QUEUE_REDIS_URL, or the embedded server of DATA_DIR (started if it is not running). */
async function withRedis<T>(config: AppConfig, log: Logger, use: (redis: import("ioredis").Redis) => Promise<T>): Promise<T> {
  const { startEmbeddedRedis } = await import("../store/embedded-redis.js");
  const { connectRedis } = await import("../store/redis.js");
  const embedded = config.redis ? null : await startEmbeddedRedis(config.dataDir, log);
  const redis = connectRedis(config.redis ?? embedded!.url);
  try {
    return await use(redis);
  } finally {
    await redis.quit();
    if (embedded?.owned) await embedded.stop();
  }
}

async function serve(role: "web" | "worker" | "all", config: AppConfig, log: Logger): Promise<void> {
  // No credentials: the setup flow's own small graph, not the app's (or the one-line refusal, before any import).
  if (!config.github) refuseSetupMode(role, config);
  // The signal handlers go in before the start: a SIGTERM while the process is still starting (its
  // "started" lines may be out already) stops it once started, rather than killing it mid-way.
  const starting: Promise<{ stop(): Promise<void> }> = config.github
    ? import("../main.js").then((m) => m.startProcess({ role, config, log }))
    : import("../setup/setup-server.js").then((m) => m.startSetupServer({ config, log, cwd: process.cwd() }));
  let signals = 0;
  const onSignal = (sig: string) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ sig }, "second signal: exiting now");
      process.exit(1);
    }
    // A backstop: stop() bounds every step, but a process must never outlive grace + 5 s on SIGTERM.
    setTimeout(
      () => {
        log.error({ sig }, "shutdown did not finish within SHUTDOWN_GRACE_SECONDS + 5 s: exiting");
        process.exit(1);
      },
      (config.env.SHUTDOWN_GRACE_SECONDS + 5) * 1000,
    ).unref();
    starting
      .then((running) => running.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  await starting;
}

/** Runs a resolved command; returns its exit code. Errors propagate (the entry prints them in one line). */
export async function runCommand({ name, args, argv }: Run, env: Record<string, string | undefined>, benches: BenchLoaders): Promise<number> {
  // Before readConfig: a bad environment is what it reports (every problem, exit 1), not a refusal.
  if (name === "config check") {
    const { runConfigCheck } = await import("./config-check.js");
    return runConfigCheck(args.string("repo-file"), env, (line) => console.log(line));
  }
  const config = readConfig(env);
  const log = createLogger(SERVE.has(name) ? config.env.LOG_LEVEL : "warn", "open-swe", undefined, config.env.LOG_FORMAT);
  const print = (line: string) => console.log(line);
  // Every command that reads or writes the data directory (Redis, mirrors, sandboxes) makes it private first.
  if (name !== "bench") {
    const { makeDataDirsPrivate } = await import("../store/private-data-dirs.js");
    await makeDataDirsPrivate(config);
  }
  switch (name) {
    case "web":
    case "worker":
    case "all":
      await serve(name, config, log);
      return 0;
    case "settings": {
      const { runSettingsCli } = await import("../operator/settings-cli.js");
      const { SettingsStore } = await import("../store/settings-store.js");
      const { secretBoxFromEnv } = await import("../store/secret-box.js");
      await withRedis(config, log, (redis) => runSettingsCli(args.positionals, new SettingsStore(redis, config.env.QUEUE_PREFIX), print, secretBoxFromEnv(config.env)));
      return 0;
    }
    case "runs ls":
    case "runs show":
    case "jobs ls":
    case "jobs retry": {
      const { runOperatorCli } = await import("../operator/operator-cli.js");
      const { RunRecords } = await import("../store/run-records.js");
      const { RunIndex } = await import("../store/run-index.js");
      const { QueueSet } = await import("../queue/queues.js");
      const { JobSigner } = await import("../queue/job-provenance.js");
      await withRedis(config, log, async (redis) => {
        const queues = new QueueSet({ connection: redis, prefix: config.env.QUEUE_PREFIX, attempts: config.env.JOB_ATTEMPTS, signer: JobSigner.fromEnv(config.env) });
        try {
          await runOperatorCli([...name.split(" "), ...argv], { runs: new RunRecords(redis, config.env.QUEUE_PREFIX), queues, index: new RunIndex(redis, config.env.QUEUE_PREFIX) }, print);
        } finally {
          await queues.close();
        }
      });
      return 0;
    }
    case "analyze": {
      const repo = args.positionals[0]!;
      const { isRepoName, repoNameError } = await import("../shared/repo-name.js");
      if (!isRepoName(repo)) throw new OpenSweError("invalid_repo", repoNameError(repo));
      const { QueueSet } = await import("../queue/queues.js");
      const { JobSigner } = await import("../queue/job-provenance.js");
      const { SettingsStore } = await import("../store/settings-store.js");
      const { enqueueAnalyze } = await import("../review/style/analyze-enqueue.js");
      const mode = args.flag("continual") ? "continual" : "bootstrap";
      await withRedis(config, log, async (redis) => {
        const queues = new QueueSet({ connection: redis, prefix: config.env.QUEUE_PREFIX, attempts: config.env.JOB_ATTEMPTS, signer: JobSigner.fromEnv(config.env) });
        try {
          const id = await enqueueAnalyze({
            settings: new SettingsStore(redis, config.env.QUEUE_PREFIX),
            queues,
            repo,
            mode,
            by: { via: "operator", principal: config.env.OPERATOR_LOGIN ? { login: config.env.OPERATOR_LOGIN } : null },
          });
          print(`queued ${mode} review-style analysis of ${repo}: job ${id}`);
        } finally {
          await queues.close();
        }
      });
      return 0;
    }
    case "run": {
      const repo = args.string("repo");
      const task = args.positionals.join(" ").trim();
      if (!repo || !task) throw new OpenSweError("usage", `open-swe run needs --repo <path|owner/name> and a task (see open-swe run --help)`);
      const model = args.string("model");
      const record = args.string("record");
      const context = args.strings("context");
      // The request's checks load little: a refused model or --repo answers before the agent's modules load.
      const { checkLocalRun } = await import("../runs/local-run-target.js");
      const target = await checkLocalRun({ repo, ...(model ? { model } : {}), gitRemoteTemplate: config.gitRemoteTemplate });
      const { runLocal } = await import("../runs/local-run.js");
      const { startEmbeddedRedis } = await import("../store/embedded-redis.js");
      const { connectRedis } = await import("../store/redis.js");
      // Recorded like every run: `open-swe runs ls` and the run index (source `local`).
      // Opened once the repository checks out, so a refused request answers without starting Redis.
      let opened: { redis: import("ioredis").Redis; embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | null } | null = null;
      const runs = async () => {
        const embedded = config.redis ? null : await startEmbeddedRedis(config.dataDir, log);
        const redis = connectRedis(config.redis ?? embedded!.url);
        opened = { redis, embedded };
        return { redis, prefix: config.env.QUEUE_PREFIX };
      };
      try {
        return await runLocal(
          {
            config,
            repo,
            task,
            verbose: args.flag("verbose"),
            ...(model ? { model } : {}),
            ...(record ? { record } : {}),
            ...(context.length ? { context } : {}),
            runs,
            out: (t) => process.stdout.write(t),
          },
          target,
        );
      } finally {
        const o = opened as { redis: import("ioredis").Redis; embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | null } | null;
        if (o) {
          await o.redis.quit();
          if (o.embedded?.owned) await o.embedded.stop();
        }
      }
    }
    case "agents list": {
      const { runAgentsCli } = await import("../operator/agents-cli.js");
      const { runToolNames } = await import("../runs/run-tool-names.js");
      await runAgentsCli(["list", ...argv], config, (t) => process.stdout.write(t), runToolNames());
      return 0;
    }
    case "sandbox exec":
    case "sandbox ls":
    case "sandbox rm": {
      const { runSandboxCli } = await import("../sandbox/cli.js");
      return await runSandboxCli([name.split(" ")[1]!, ...argv], config.sandbox);
    }
    case "bench":
      await (await benches[args.positionals[0] as BenchName]()).main(argv);
      return 0;
  }
}
