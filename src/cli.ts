import { existsSync } from "node:fs";
import { ConfigError, readConfig, type AppConfig } from "./config/env.js";
import { OpenSweError } from "./errors.js";
import { isRepoName, repoNameError } from "./shared/repo-name.js";
import { createLogger, type Logger } from "./logger.js";
import { startProcess, startSetupMode, type Role } from "./main.js";
import { QueueSet } from "./queue/queues.js";
import { startEmbeddedRedis } from "./store/embedded-redis.js";
import { makeDataDirsPrivate } from "./store/private-data-dirs.js";
import { connectRedis } from "./store/redis.js";
import { runSettingsCli, SETTINGS_USAGE, UsageError } from "./operator/settings-cli.js";
import { secretBoxFromEnv } from "./store/secret-box.js";
import { SettingsStore } from "./store/settings-store.js";

const USAGE = `usage: open-swe <command>
  web | worker | all        run the webhook server, the job workers, or both (default: all)
  settings …                read and change settings (open-swe settings help)
  analyze <owner/repo> [--continual]   queue the review-style analyzer for a repo (bootstrap by default)
  runs ls|show …            recent agent/review runs and one run's record (open-swe runs help)
  jobs ls|retry …           a queue's jobs; retry a failed one (open-swe jobs help)
  run --repo <path|owner/name> [--model ID] [--verbose] [--record FILE] [--context PATH]… "<task>"   run the agent locally: progress, branch, diff, transcript
  agents list --repo <path|owner/name> [--user <login>]   the repo's (and a user's) subagents as JSON: where each came from, which files lost and why
  sandbox exec|ls|rm …      run a command in a fresh sandbox; list or remove sandboxes
  bench <intake|sandbox|agent|checkpoints|tokens|review|scale>   run a benchmark (npm run bench:<name>)
`;

/** The commands that read or write the data directory (Redis, mirrors, sandboxes). */
const DATA_COMMANDS = new Set(["web", "worker", "all", "settings", "analyze", "runs", "jobs", "run", "agents", "sandbox"]);

const BENCHES: Record<string, () => Promise<{ main(argv: string[]): Promise<void> }>> = {
  intake: () => import("../bench/intake.js"),
  agent: () => import("../bench/agent.js"),
  sandbox: () => import("../bench/sandbox.js"),
  checkpoints: () => import("../bench/checkpoints.js"),
  scale: () => import("../bench/scale.js"),
  review: () => import("../bench/review.js"),
  tokens: () => import("../bench/tokens.js"),
};

async function serve(role: Role, config: AppConfig, log: Logger): Promise<void> {
  const running = config.github ? await startProcess({ role, config, log }) : await startSetupMode(role, config, log);
  let signals = 0;
  const onSignal = (sig: string) => {
    signals += 1;
    if (signals > 1) {
      log.warn({ sig }, "second signal: exiting now");
      process.exit(1);
    }
    // A backstop: stop() bounds every step, but a process must never outlive grace + 5 s on SIGTERM.
    setTimeout(() => {
      log.error({ sig }, "shutdown did not finish within SHUTDOWN_GRACE_SECONDS + 5 s: exiting");
      process.exit(1);
    }, (config.env.SHUTDOWN_GRACE_SECONDS + 5) * 1000).unref();
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
}

async function settings(argv: string[], config: AppConfig, log: Logger): Promise<void> {
  if (argv.length === 0 || argv[0] === "help") {
    console.log(SETTINGS_USAGE);
    return;
  }
  const embedded = config.redisUrl ? null : await startEmbeddedRedis(config.dataDir, log);
  const redis = connectRedis(config.redisUrl ?? embedded!.url);
  try {
    await runSettingsCli(argv, new SettingsStore(redis, config.env.QUEUE_PREFIX), (l) => console.log(l), secretBoxFromEnv(config.env));
  } finally {
    await redis.quit();
    if (embedded?.owned) await embedded.stop();
  }
}

async function operator(argv: string[], config: AppConfig, log: Logger): Promise<void> {
  const { runOperatorCli, OPERATOR_USAGE } = await import("./operator/operator-cli.js");
  if (argv.length < 2 || argv[1] === "help") {
    console.log(OPERATOR_USAGE);
    return;
  }
  const { RunRecords } = await import("./store/run-records.js");
  const { RunIndex } = await import("./store/run-index.js");
  const embedded = config.redisUrl ? null : await startEmbeddedRedis(config.dataDir, log);
  const redis = connectRedis(config.redisUrl ?? embedded!.url);
  const queues = new QueueSet({ connection: redis, prefix: config.env.QUEUE_PREFIX, attempts: config.env.JOB_ATTEMPTS });
  try {
    await runOperatorCli(argv, { runs: new RunRecords(redis, config.env.QUEUE_PREFIX), queues, index: new RunIndex(redis, config.env.QUEUE_PREFIX) }, (l) => console.log(l));
  } finally {
    await queues.close();
    await redis.quit();
    if (embedded?.owned) await embedded.stop();
  }
}

async function analyze(argv: string[], config: AppConfig, log: Logger): Promise<void> {
  const repo = argv.find((a) => !a.startsWith("--"));
  if (!repo) throw new UsageError("usage: open-swe analyze <owner/repo> [--continual]");
  if (!isRepoName(repo)) throw new UsageError(repoNameError(repo));
  const embedded = config.redisUrl ? null : await startEmbeddedRedis(config.dataDir, log);
  const redis = connectRedis(config.redisUrl ?? embedded!.url);
  const queues = new QueueSet({ connection: redis, prefix: config.env.QUEUE_PREFIX, attempts: config.env.JOB_ATTEMPTS });
  try {
    const { enqueueAnalyze } = await import("./runs/analyze-enqueue.js");
    const mode = argv.includes("--continual") ? "continual" : "bootstrap";
    const id = await enqueueAnalyze({ settings: new SettingsStore(redis, config.env.QUEUE_PREFIX), queues, repo, mode }).catch((err: unknown) => {
      throw err instanceof OpenSweError ? new UsageError(err.message) : err;
    });
    console.log(`queued ${mode} review-style analysis of ${repo}: job ${id}`);
  } finally {
    await queues.close();
    await redis.quit();
    if (embedded?.owned) await embedded.stop();
  }
}

export async function main(argv: string[]): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  const [command = "all", ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(USAGE);
    return;
  }
  let config: AppConfig;
  try {
    config = readConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`open-swe: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(["settings", "run", "sandbox", "analyze", "runs", "jobs", "agents"].includes(command) ? "warn" : config.env.LOG_LEVEL, "open-swe", undefined, config.env.LOG_FORMAT);
  try {
    if (DATA_COMMANDS.has(command)) await makeDataDirsPrivate(config);
    switch (command) {
      case "web":
      case "worker":
      case "all":
        return await serve(command, config, log);
      case "settings":
        return await settings(rest, config, log);
      case "analyze":
        return await analyze(rest, config, log);
      case "runs":
      case "jobs":
        return await operator([command, ...rest], config, log);
      case "run": {
        const verbose = rest.includes("--verbose");
        const args = rest.filter((a) => a !== "--verbose");
        const repoAt = args.indexOf("--repo");
        const modelAt = args.indexOf("--model");
        const recordAt = args.indexOf("--record");
        const repo = repoAt >= 0 ? args[repoAt + 1] : undefined;
        const model = modelAt >= 0 ? args[modelAt + 1] : undefined;
        const record = recordAt >= 0 ? args[recordAt + 1] : undefined;
        const contextAt = args.flatMap((a, i) => (a === "--context" ? [i, i + 1] : []));
        const context = contextAt.filter((_, k) => k % 2 === 1).map((i) => args[i]);
        const task = args.filter((_, i) => ![repoAt, repoAt + 1, modelAt, modelAt + 1, recordAt, recordAt + 1, ...contextAt].includes(i)).join(" ").trim();
        if (!repo || !task || (recordAt >= 0 && !record) || context.some((c) => !c)) throw new UsageError('usage: open-swe run --repo <path|owner/name> [--model ID] [--verbose] [--record FILE] [--context PATH]… "<task>"');
        const { runLocal } = await import("./runs/local-run.js");
        // Recorded like every run: `open-swe runs ls` and the run index (source `local`).
        // Opened once the repository checks out, so a refused request answers without starting Redis.
        const opened: { current: { redis: ReturnType<typeof connectRedis>; embedded: Awaited<ReturnType<typeof startEmbeddedRedis>> | null } | null } = { current: null };
        const runs = async () => {
          const embedded = config.redisUrl ? null : await startEmbeddedRedis(config.dataDir, log);
          const redis = connectRedis(config.redisUrl ?? embedded!.url);
          opened.current = { redis, embedded };
          return { redis, prefix: config.env.QUEUE_PREFIX };
        };
        try {
          process.exitCode = await runLocal({ config, repo, task, verbose, ...(model ? { model } : {}), ...(record ? { record } : {}), ...(context.length ? { context: context as string[] } : {}), runs, out: (t) => process.stdout.write(t) });
        } finally {
          const o = opened.current;
          if (o) {
            await o.redis.quit();
            if (o.embedded?.owned) await o.embedded.stop();
          }
        }
        return;
      }
      case "agents": {
        const { runAgentsCli, AgentsUsageError } = await import("./operator/agents-cli.js");
        try {
          const { runToolNames } = await import("./runs/run-tool-names.js");
          return await runAgentsCli(rest, config, (t) => process.stdout.write(t), runToolNames());
        } catch (err) {
          if (err instanceof AgentsUsageError) throw new UsageError(err.message);
          throw err;
        }
      }
      case "sandbox": {
        const { runSandboxCli } = await import("./sandbox/cli.js");
        process.exitCode = await runSandboxCli(rest, config.sandbox);
        return;
      }
      case "bench": {
        const load = BENCHES[rest[0] ?? ""];
        if (!load) throw new UsageError(`unknown benchmark "${rest[0] ?? ""}": one of ${Object.keys(BENCHES).join(", ")}`);
        return await (await load()).main(rest.slice(1));
      }
      default:
        throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || (err instanceof OpenSweError && err.code === "invalid_repo")) {
      console.error(`open-swe: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

await main(process.argv.slice(2));
