import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { envRefusal, httpUrl } from "./env-refusal.js";
import { OpenSweError } from "../errors.js";
import { readModelConfig, type ModelConfig } from "./model-config.js";
import { readSandboxConfig, type SandboxConfig } from "./sandbox-config.js";
import { readWebSearchConfig, type WebSearchConfig } from "./web-search-config.js";

const csv = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
    );

const int = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", "on", "off"])
    .default(fallback ? "true" : "false")
    .transform((v) => ["true", "1", "yes", "on"].includes(v));

/**
 * Every setting the app reads from its environment; `readConfig` is the only reader of process.env, apart
 * from LangChain's tracing switches (`untraced-context.ts`), which LangChain itself reads.
 */
export const EnvSchema = z.object({
  APP_ID: z.string().regex(/^\d+$/, "a numeric GitHub App id").optional(),
  PRIVATE_KEY: z.string().min(1).optional(),
  PRIVATE_KEY_PATH: z.string().min(1).optional(),
  WEBHOOK_SECRET: z.string().min(1).optional(),
  /** GitHub Enterprise Server (or GHE.com) host name: the API is `https://<GHE_HOST>/api/v3` unless GITHUB_API_URL says otherwise. */
  GHE_HOST: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/, "a host name like github.example.com (no https://, no path)")
    .optional(),
  /** GitHub's REST API base (GHES over http, a proxy): overrides the one derived from GHE_HOST. */
  GITHUB_API_URL: httpUrl("https://github.example.com/api/v3").optional(),
  /** Slack's Web API base (GovSlack, a proxy); default https://slack.com/api/. */
  SLACK_API_URL: httpUrl("https://slack.com/api/").optional(),
  /** Linear's GraphQL endpoint (a mirror, a proxy); default https://api.linear.app/graphql. */
  LINEAR_API_URL: httpUrl("https://api.linear.app/graphql")
    .refine((u) => u.startsWith("https:") || /^http:\/\/(localhost|127\.0\.0\.1)(:|\/|$)/.test(u), "https (Linear's SDK allows http only to localhost)")
    .optional(),
  PORT: int(3000, 0, 65535),
  HOST: z.string().default("0.0.0.0"),
  /** Setup mode (no credentials yet) listens here: loopback unless told otherwise (`0.0.0.0` in a container). */
  SETUP_HOST: z.string().min(1).default("127.0.0.1"),
  /** The `worker` role serves GET /livez, /readyz (= /health) and /metrics on this port (containers); unset: no listener. */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  QUEUE_REDIS_URL: z
    .string()
    .regex(/^(redis|rediss|unix):/, "a redis://, rediss:// or unix:/path URL")
    .optional(),
  /** Redis Sentinel instead of QUEUE_REDIS_URL: `host:port,host:port` of the sentinels; the master is asked of them. */
  QUEUE_REDIS_SENTINELS: z
    .string()
    .regex(/^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/, "host:port of each sentinel, comma-separated")
    .optional(),
  /** The master's name the sentinels monitor. */
  QUEUE_REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, . _ -")
    .default("mymaster"),
  /** With sentinels: the master's (and replicas') password; the sentinels' own, if they have one. */
  QUEUE_REDIS_PASSWORD: z.string().min(1).optional(),
  QUEUE_REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  /** With sentinels: TLS to the sentinels and to the master they name. */
  QUEUE_REDIS_SENTINEL_TLS: bool(false),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_{}-]+$/, "letters, digits, _ - and {} (no colons)")
    .default("open-swe"),
  DATA_DIR: z.string().default(".data"),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  /** Unset: pretty (pino-pretty) on a TTY, JSON lines otherwise; `json` forces JSON on a TTY too. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  APP_SLUG: z
    .string()
    .regex(/^[a-z0-9-]+$/, "the app's slug, e.g. open-swe")
    .default("open-swe"),
  /** Unset: derived from APP_SLUG (`my-bot` → `my-bot,mybot`), so the name GitHub gave the app works. */
  MENTION_HANDLES: csv("").optional(),
  BOT_LOGINS: csv(""),
  /** Models a thread may pick with `--model`; empty: every model in the table. */
  THREAD_MODELS: csv(""),
  TRIGGER_LABEL: z.string().min(1).default("open-swe"),
  WORKER_CONCURRENCY: int(4, 1, 256),
  /** While a run starts, runs under way on the same worker wait at most this long per model or tool call; 0: off. */
  START_PRIORITY_MS: int(1000, 0, 60_000),
  MAX_WEBHOOK_BYTES: int(25 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  /** GitHub webhook bodies held at once before their signature is checked, per sending address (IPv6: /64): past it, 429. */
  WEBHOOK_UNVERIFIED_PER_ADDRESS: int(64, 1, 100_000),
  /** …and their bytes (the declared length, or what has arrived): past it, 429. At least MAX_WEBHOOK_BYTES. */
  WEBHOOK_UNVERIFIED_MB_PER_ADDRESS: int(64, 1, 100_000),
  /** The same over every address: past either, 503. */
  WEBHOOK_UNVERIFIED_TOTAL: int(512, 1, 1_000_000),
  WEBHOOK_UNVERIFIED_MB_TOTAL: int(256, 1, 1_000_000),
  /** A signed GitHub delivery is handled once per delivery id and per body within this window (a redelivery or a replay: 200, no job). */
  WEBHOOK_DEDUPE_SECONDS: int(7 * 86_400, 60, 90 * 86_400),
  /** Slack, Linear, Jira and Confluence bodies are small: larger ones get 413 as soon as the limit is passed. */
  SOURCE_MAX_BODY_BYTES: int(1024 * 1024, 1024, 100 * 1024 * 1024),
  PERMISSION_CACHE_SECONDS: int(60, 0, 3600),
  PERMISSION_CHECK_BUDGET_SECONDS: int(60, 1, 600),
  AGENT_COMMIT_MAX_FILES: int(500, 1, 100_000),
  AGENT_COMMIT_MAX_MB: int(20, 1, 2_000),
  /** One run's agent and skill files (both levels): total size and counts; past them files are not read. */
  AGENT_FILES_MAX_MB: int(2, 1, 100),
  AGENT_FILES_MAX_AGENTS: int(50, 1, 1_000),
  AGENT_FILES_MAX_SKILLS: int(100, 1, 1_000),
  FOLLOW_UP_CAP: int(20, 1, 1000),
  RUN_LOCK_SECONDS: int(3600, 10, 86400),
  /** CI autofix waits for a head's unfinished checks at most this long, then decides with what failed by then. */
  AUTOFIX_SETTLE_MINUTES: int(30, 0, 1440),
  /** How often the `ci-monitor` sweep looks at our open PRs (red checks the webhooks missed, merge conflicts). */
  CI_MONITOR_EVERY_SECONDS: int(600, 30, 86_400),
  JOB_ATTEMPTS: int(3, 1, 20),
  /**
   * A signed job runs at most this long after it was due (issued, plus its delay); older, the worker refuses
   * it. Retries and stalled-job recovery of the same job count from the same issue time.
   */
  JOB_MAX_AGE_HOURS: int(24, 1, 24 * 30),
  /**
   * How a GitHub webhook is made durable before its 2xx: `stream` (default) appends it (one XADD, sealed)
   * to the intake stream a worker's pump moves into BullMQ; `queue` adds its job to BullMQ there and then
   * (the job is in BullMQ at the 2xx even with no worker running, for more work per webhook).
   */
  WEBHOOK_INTAKE: z.enum(["queue", "stream"]).default("stream"),
  /**
   * BullMQ's job lock: a worker renews it every quarter of this; a job whose lock lapsed is stalled. Shorter:
   * a dead worker's jobs are taken over sooner, but a Redis pause or an event-loop stall this long makes the
   * worker give the job up (it stops and the job resumes elsewhere from its checkpoint).
   */
  QUEUE_LOCK_DURATION_MS: int(30_000, 1_000, 600_000),
  /** How often each worker looks for stalled jobs (active, lock lapsed) and moves them back to waiting. */
  QUEUE_STALLED_INTERVAL_MS: int(30_000, 500, 600_000),
  /** Stalls a job survives before it is failed ("job stalled more than allowable limit"). */
  QUEUE_MAX_STALLED_COUNT: int(1, 0, 100),
  /**
   * Local sandboxes: a host (worker) refreshes its liveness key every third of this. Silent this long, it
   * is dead: its threads' jobs go to the shared queue and their runs say the workspace was lost.
   */
  HOST_ALIVE_MS: int(30_000, 600, 600_000),
  REVIEW_LOCK_WAIT_SECONDS: int(300, 1, 3600),
  SHUTDOWN_GRACE_SECONDS: int(30, 1, 3600),
  /** A thread's checkpoints live this long after its last write (every step writes), then all of them go. */
  CHECKPOINT_TTL_DAYS: int(30, 1, 3650),
  OPEN_SWE_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "64 hex characters (a 256-bit key)")
    .optional(),
  /** The key `OPEN_SWE_SECRET_KEY` replaced: still decrypts, never encrypts (rotation). */
  OPEN_SWE_SECRET_KEY_PREVIOUS: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "64 hex characters (a 256-bit key)")
    .optional(),
  /** Jira Cloud site the worker reads and writes (`https://acme.atlassian.net`), with an API token of the bot account. */
  JIRA_BASE_URL: httpUrl("https://acme.atlassian.net").optional(),
  JIRA_EMAIL: z.string().min(3).optional(),
  JIRA_API_TOKEN: z.string().min(1).optional(),
  /** Signs Jira admin webhooks (`X-Hub-Signature`) and is the shared-secret header of Automation web requests. */
  JIRA_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters").optional(),
  /**
   * Confluence Cloud without Connect: the site (`https://acme.atlassian.net`; `/wiki` is added) or the API gateway
   * (`https://api.atlassian.com/ex/confluence/<cloudId>/wiki`, for a scoped token) the worker reads and writes, with
   * the bot account's (or a service account's) email and API token; Automation web requests come in signed with
   * `CONFLUENCE_WEBHOOK_SECRET`.
   */
  CONFLUENCE_BASE_URL: httpUrl("https://acme.atlassian.net").optional(),
  CONFLUENCE_EMAIL: z.string().min(3).optional(),
  CONFLUENCE_API_TOKEN: z.string().min(1).optional(),
  /** The Automation rule's `X-Open-SWE-Webhook-Secret` header, or the key of an `X-Hub-Signature` HMAC of the body. */
  CONFLUENCE_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters").optional(),
  /** Confluence sites allowed to install the Connect app (`acme.atlassian.net`); unset: the Connect routes are off. */
  CONFLUENCE_SITES: csv(""),
  CONFLUENCE_APP_KEY: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "letters, digits, . _ -")
    .default("open-swe"),
  WEBHOOK_PROXY_URL: httpUrl("https://smee.io/abc123").optional(),
  /** The app's public base URL (a tunnel or a deployment); GitHub posts webhooks to `<APP_URL>/api/github/webhooks`. */
  APP_URL: httpUrl("https://open-swe.example.com").optional(),
  NO_SMEE_SETUP: bool(false),
  /** The GitHub App's OAuth client (the manifest flow stores both): dashboard sign-in and "open PRs as me". */
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  /** GitHub logins that are dashboard admins (team models, enabled repos, review styles, queues). */
  DASHBOARD_ADMINS: csv(""),
  DASHBOARD_SESSION_HOURS: int(12, 1, 720),
  /** Live views (SSE streams of a run page) one session, and one client address, may hold open at once. */
  DASHBOARD_LIVE_STREAMS_PER_SESSION: int(8, 1, 1000),
  DASHBOARD_LIVE_STREAMS_PER_ADDRESS: int(32, 1, 100_000),
  GIT_REMOTE_TEMPLATE: z
    .string()
    .regex(/\{owner\}.*\{repo\}/, "a URL with {owner} and {repo}, e.g. https://github.com/{owner}/{repo}.git")
    .optional(),
  AGENT_MODEL_CALL_LIMIT: int(150, 1, 10_000),
  AGENT_TIMEOUT_MINUTES: int(60, 1, 24 * 60),
  /** A paused run's approval request is denied automatically after this long. */
  APPROVAL_TIMEOUT_MINUTES: int(60, 1, 7 * 24 * 60),
  /** The GitHub login the operator CLI's jobs (`open-swe analyze`) are signed as (via "operator"); unset: nobody. */
  OPERATOR_LOGIN: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,39}$/, "a GitHub login")
    .optional(),
  /**
   * Set: GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). Unset in production
   * (NODE_ENV=production or APP_URL set): /metrics answers only on a listener bound to loopback.
   */
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
  /** GET /metrics reads the queue depths from Redis at most once per this many seconds (0: every scrape). */
  METRICS_QUEUE_CACHE_SECONDS: int(5, 0, 300),
  REVIEW_TOKEN_BUDGET: int(60_000, 1_000, 2_000_000),
  /** Slack app: requests to /webhooks/slack are verified with it; unset, every one is refused. */
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  /** Slack bot token (`xoxb-…`): the worker re-reads messages and answers with it. */
  SLACK_BOT_TOKEN: z.string().min(1).optional(),
  /** A run stops before the model call that would take its cost past this (USD); unset: no budget. */
  AGENT_MAX_BUDGET_USD: z.coerce.number().positive("a positive amount in USD").optional(),
  /** A run stops before the model call that would take its tokens (input and output) past this; unset: none, but a model without a price is capped at 20M. */
  AGENT_MAX_BUDGET_TOKENS: z.coerce.number().int().positive("a positive whole number of tokens").optional(),
  /** User-level agents and skills: `<root>/<login>/.agents/agents/*.md`; default `$DATA_DIR/users`. */
  USER_AGENTS_ROOT: z.string().min(1).optional(),
  /** Linear webhook signing secret; unset: every request to /webhooks/linear is refused. */
  LINEAR_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** A Linear personal API key (`lin_api_…`), sent as is. */
  LINEAR_API_KEY: z.string().min(1).optional(),
  /** Or a Linear OAuth app's access token, sent as `Bearer`. */
  LINEAR_ACCESS_TOKEN: z.string().min(1).optional(),
  /** The Linear user the app acts as: its own comments are ignored, issues assigned/delegated to it start a run. */
  LINEAR_APP_USER_ID: z.string().min(1).optional(),
  /** A label (by name, any case) that starts a run when added to an issue. */
  LINEAR_TRIGGER_LABEL: z.string().min(1).optional(),
  /** `@handles` that mention the app in a Linear comment; unset: MENTION_HANDLES. */
  LINEAR_MENTION_HANDLES: csv("").optional(),
  NODE_ENV: z.string().optional(),
  /** The commit this build was made from (the image's build argument sets it); `open-swe --version`, start-up lines, /metrics. */
  OPEN_SWE_COMMIT: z.string().min(1).max(64).optional(),
});

export type Env = Omit<z.infer<typeof EnvSchema>, "MENTION_HANDLES"> & { MENTION_HANDLES: string[] };

/** `open-swe` → `["open-swe", "openswe"]`: the slug, and the slug without dashes. */
export function defaultMentionHandles(slug: string): string[] {
  return [...new Set([slug, slug.replace(/-/g, "")])];
}

export interface AppConfig {
  env: Env;
  /** null means setup mode: Probot's manifest flow registers the app first. */
  github: { appId: string; privateKey: string; webhookSecret: string; baseUrl?: string } | null;
  /** An external Redis (a URL, or sentinels to ask for the master); null: the embedded redis-server. */
  redis: RedisTarget | null;
  dataDir: string;
  botLogins: string[];
  sandbox: SandboxConfig;
  model: ModelConfig;
  webSearch: WebSearchConfig;
  /** Where host-side git fetches and pushes: `{owner}`/`{repo}` filled in; never carries a credential. */
  gitRemoteTemplate: string;
  /** `MCP_SECRET_<NAME>` variables by NAME: header values of the team's MCP servers (`${NAME}`). */
  mcpSecrets: Record<string, string>;
  /** USER_AGENTS_ROOT resolved (default `<dataDir>/users`). */
  userAgentsRoot: string;
}

export class ConfigError extends OpenSweError<"config_invalid"> {
  constructor(message: string) {
    super("config_invalid", message);
  }
}

/**
 * No APP_ID/key yet: only `all`/`web` outside production serve the manifest setup flow; a worker, or any
 * role in production, stops with this line (before the app's modules load: it answers in a fraction of a second).
 */
export function refuseSetupMode(role: "web" | "worker" | "all", config: AppConfig): void {
  if (role === "worker" || config.env.NODE_ENV === "production") {
    throw new ConfigError(
      "no GitHub App credentials (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET): run `npm start` on a workstation to register the app with the setup flow (it writes them and APP_SLUG to .env), then pass those variables to this process",
    );
  }
}

/** GitHub's REST API base: GITHUB_API_URL, else GHE_HOST's `/api/v3`; undefined for github.com. */
export function githubApiUrl(e: Pick<Env, "GITHUB_API_URL" | "GHE_HOST">): string | undefined {
  if (e.GITHUB_API_URL) return e.GITHUB_API_URL.replace(/\/+$/, "");
  return e.GHE_HOST ? `https://${e.GHE_HOST}/api/v3` : undefined;
}

/** Where Redis is: a URL, or Redis Sentinel (the sentinels are asked which server is the master, again after a failover). */
export type RedisTarget = { url: string } | { sentinels: { host: string; port: number }[]; name: string; tls: boolean; password?: string; sentinelPassword?: string };

function redisTarget(e: Env): RedisTarget | null {
  if (e.QUEUE_REDIS_URL && e.QUEUE_REDIS_SENTINELS) throw new ConfigError("QUEUE_REDIS_URL and QUEUE_REDIS_SENTINELS are both set: use one (a URL, or the sentinels that name the master)");
  if (e.QUEUE_REDIS_URL) return { url: e.QUEUE_REDIS_URL };
  if (!e.QUEUE_REDIS_SENTINELS) return null;
  return {
    sentinels: e.QUEUE_REDIS_SENTINELS.split(",").map((hp) => {
      const [host, port] = hp.trim().split(":") as [string, string];
      return { host, port: Number(port) };
    }),
    name: e.QUEUE_REDIS_SENTINEL_NAME,
    tls: e.QUEUE_REDIS_SENTINEL_TLS,
    ...(e.QUEUE_REDIS_PASSWORD ? { password: e.QUEUE_REDIS_PASSWORD } : {}),
    ...(e.QUEUE_REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.QUEUE_REDIS_SENTINEL_PASSWORD } : {}),
  };
}

/** Reads and validates the environment once; a bad value stops start-up naming the variable. */
export function readConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): AppConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(envRefusal(parsed.error, cleaned));
  const e: Env = {
    ...parsed.data,
    MENTION_HANDLES: parsed.data.MENTION_HANDLES?.length ? parsed.data.MENTION_HANDLES : defaultMentionHandles(parsed.data.APP_SLUG),
  };
  let privateKey = e.PRIVATE_KEY?.replace(/\\n/g, "\n");
  if (!privateKey && e.PRIVATE_KEY_PATH) {
    try {
      privateKey = readFileSync(resolve(cwd, e.PRIVATE_KEY_PATH), "utf8");
    } catch (err) {
      throw new ConfigError(`invalid PRIVATE_KEY_PATH: cannot read ${e.PRIVATE_KEY_PATH} (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  if (privateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) {
    throw new ConfigError("invalid PRIVATE_KEY: expected a PEM private key (-----BEGIN RSA PRIVATE KEY----- …)");
  }
  let github: AppConfig["github"] = null;
  if (e.APP_ID || privateKey) {
    if (!e.APP_ID) throw new ConfigError("missing APP_ID: the numeric id of your GitHub App (PRIVATE_KEY is set)");
    if (!privateKey) throw new ConfigError("missing PRIVATE_KEY or PRIVATE_KEY_PATH: the GitHub App's PEM key (APP_ID is set)");
    if (!e.WEBHOOK_SECRET) throw new ConfigError("missing WEBHOOK_SECRET: the GitHub App's webhook secret");
    github = {
      appId: e.APP_ID,
      privateKey,
      webhookSecret: e.WEBHOOK_SECRET,
      ...(githubApiUrl(e) ? { baseUrl: githubApiUrl(e)! } : {}),
    };
  }
  const dataDir = resolve(cwd, e.DATA_DIR);
  let sandbox: SandboxConfig;
  let model: ModelConfig;
  try {
    sandbox = readSandboxConfig({ SANDBOX_ROOT: join(dataDir, "sandboxes"), SANDBOX_MIRROR_ROOT: join(dataDir, "mirrors"), ...cleaned }, cwd);
    model = readModelConfig({ ...cleaned, THREAD_MODELS: parsed.data.THREAD_MODELS.join(",") }, cwd);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return {
    env: e,
    github,
    sandbox,
    model,
    webSearch: readWebSearchConfig(cleaned),
    gitRemoteTemplate: e.GIT_REMOTE_TEMPLATE ?? `https://${e.GHE_HOST ?? "github.com"}/{owner}/{repo}.git`,
    redis: redisTarget(e),
    mcpSecrets: Object.fromEntries(Object.entries(cleaned).flatMap(([k, v]) => (k.startsWith("MCP_SECRET_") && v !== undefined ? [[k.slice("MCP_SECRET_".length), v]] : []))),
    dataDir,
    userAgentsRoot: e.USER_AGENTS_ROOT ? resolve(cwd, e.USER_AGENTS_ROOT) : join(dataDir, "users"),
    botLogins: [`${e.APP_SLUG}[bot]`, ...e.BOT_LOGINS],
  };
}
