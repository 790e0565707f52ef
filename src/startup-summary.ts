import type { AppConfig } from "./config/env.js";
import { BUILTIN_DEFAULT_MODEL } from "./config/model-table.js";
import type { Source } from "./sources/source.js";

export type ProcessRole = "web" | "worker" | "all";

export interface StartupSummaryInput {
  role: ProcessRole;
  config: Pick<AppConfig, "env" | "sandbox" | "model" | "webSearch">;
  redis: "embedded" | "embedded (shared)" | "external" | "sentinel";
  /** The web listener's port, when this process serves HTTP. */
  port: number | null;
  /** The sources besides GitHub (Slack, Linear, …); one whose secret is unset refuses every request. */
  sources?: Array<Pick<Source, "name" | "configured" | "secretEnv" | "warning">>;
  /** Which form of the app runs: the compiled dist/ or the TypeScript sources through tsx (bin/open-swe.mjs chose). */
  runtime?: "dist" | "tsx";
  /** The running build (version, commit when known). */
  build?: { version: string; commit: string | null };
  /** The sandbox provider's isolation check at worker start; absent when it was not run. */
  sandboxIsolation?: { ok: boolean; detail?: string; reason?: string };
}

export interface StartupSummary {
  /** One line per role this process plays. */
  lines: Array<{ role: "web" | "worker"; fields: Record<string, unknown> }>;
  /** One per missing key or failed check, naming the variable. */
  warnings: Array<{ key: string; message: string }>;
  /** Where the dashboard answers and whether anyone can sign in (web role only). */
  dashboard?: { url: string; signIn: boolean; message: string };
}

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/i;

/** Whether GitHub can reach the webhook: a smee channel relays it, or APP_URL is a public address. */
export function webhookReachable(env: Pick<AppConfig["env"], "WEBHOOK_PROXY_URL" | "APP_URL">): boolean {
  if (env.WEBHOOK_PROXY_URL) return true;
  if (!env.APP_URL) return false;
  return !LOOPBACK_HOST.test(new URL(env.APP_URL).hostname);
}

/**
 * The provider's credentials that are not set. `required`: a worker refuses to start without it;
 * Modal's SDK can also read a `~/.modal.toml` profile, so its tokens only warn.
 */
export function missingSandboxKeys(sandbox: AppConfig["sandbox"]): Array<{ key: string; required: boolean }> {
  switch (sandbox.type) {
    case "e2b":
      return sandbox.e2b.apiKey ? [] : [{ key: "E2B_API_KEY", required: true }];
    case "modal":
      return [...(sandbox.modal.tokenId ? [] : [{ key: "MODAL_TOKEN_ID", required: false }]), ...(sandbox.modal.tokenSecret ? [] : [{ key: "MODAL_TOKEN_SECRET", required: false }])];
    case "daytona":
      return sandbox.daytona.apiKey ? [] : [{ key: "DAYTONA_API_KEY", required: true }];
    default:
      return [];
  }
}

/** The key the deployment's default model needs, and whether it is set (`null`: none needed, e.g. replay). */
export function modelKey(model: AppConfig["model"]): { id: string; key: string | null; present: boolean } {
  const id = model.model ?? BUILTIN_DEFAULT_MODEL;
  if (id.startsWith("replay:")) return { id, key: null, present: true };
  if (id.startsWith("openai:")) return { id, key: "OPENAI_API_KEY", present: Boolean(model.openaiApiKey) };
  return { id, key: "ANTHROPIC_API_KEY", present: Boolean(model.anthropicApiKey) };
}

/** What the process is about to do, from its config alone (pure: start-up logs it). */
export function startupSummary(input: StartupSummaryInput): StartupSummary {
  const { config, role } = input;
  const env = config.env;
  const lines: StartupSummary["lines"] = [];
  const runtime = {
    ...(input.build ? { version: input.build.version, ...(input.build.commit ? { commit: input.build.commit } : {}) } : {}),
    ...(input.runtime ? { runtime: input.runtime === "dist" ? "dist/ (compiled)" : "src/ through tsx (npm run build, or npm start, compiles dist/)" } : {}),
  };
  const warnings: StartupSummary["warnings"] = [];
  let dashboard: StartupSummary["dashboard"];
  if (role === "web" || role === "all") {
    if (!webhookReachable(env)) {
      warnings.push({
        key: "APP_URL",
        message: `GitHub cannot reach this app's webhook: ${env.APP_URL ? `APP_URL (${env.APP_URL}) is a local address` : "neither APP_URL nor WEBHOOK_PROXY_URL is set, so the app was registered with a localhost webhook URL"}. Put a tunnel in front of port ${input.port ?? env.PORT}, set APP_URL to its public URL and set the app's webhook URL (GitHub → Settings → Developer settings → GitHub Apps → the app) to <APP_URL>/api/github/webhooks — or set WEBHOOK_PROXY_URL to a smee.io channel and point the webhook there`,
      });
    }
    const signIn = Boolean(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET);
    const url = `${(env.APP_URL ?? `http://localhost:${input.port ?? env.PORT}`).replace(/\/+$/, "")}/app`;
    dashboard = { url, signIn, message: `dashboard at ${url}; sign-in ${signIn ? "on" : "off: set GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET (the setup flow saves them)"}` };
    const unconfigured = (input.sources ?? []).filter((s) => !s.configured);
    for (const s of input.sources ?? []) if (s.warning) warnings.push(s.warning);
    const publicUrl = env.WEBHOOK_PROXY_URL ?? env.APP_URL ?? null;
    lines.push({
      role: "web",
      fields: {
        ...runtime,
        redis: input.redis,
        port: input.port,
        publicUrl,
        webhookPath: "/api/github/webhooks",
        sources: ["github", ...(input.sources ?? []).filter((s) => s.configured).map((s) => s.name)],
        mentions: env.MENTION_HANDLES.map((h) => `@${h}`),
        // Said once, here, rather than as a warning: most installations use only some sources.
        ...(unconfigured.length > 0
          ? { sourcesRefusing: unconfigured.map((s) => `${s.name}: ${s.secretEnv ?? "its secret"} ${s.secretEnv?.includes(",") ? "are" : "is"} not set, every request to its routes gets 401`) }
          : {}),
      },
    });
  }
  if (role === "worker" || role === "all") {
    const model = modelKey(config.model);
    const iso = input.sandboxIsolation;
    const webSearch = config.webSearch.tavilyApiKey ? "tavily" : config.webSearch.braveApiKey ? "brave" : null;
    lines.push({
      role: "worker",
      fields: {
        ...runtime,
        redis: input.redis,
        sandbox: config.sandbox.type,
        sandboxIsolation: iso ? (iso.ok ? `passed${iso.detail ? `: ${iso.detail}` : ""}` : `failed: ${iso.reason ?? "unknown"}`) : "not checked",
        model: model.id,
        modelKey: model.key === null ? "not needed" : model.present ? "present" : "missing",
        webSearch,
        concurrency: env.WORKER_CONCURRENCY,
      },
    });
    if (!model.present && model.key) {
      warnings.push({ key: model.key, message: `${model.key} is not set: every agent run and review on ${model.id} will fail until it is` });
    }
    for (const { key, required } of missingSandboxKeys(config.sandbox)) {
      const without = required ? "cannot create sandboxes without it" : "needs it unless a ~/.modal.toml profile holds the token";
      warnings.push({ key, message: `${key} is not set: SANDBOX_TYPE=${config.sandbox.type} ${without}` });
    }
    if (iso && !iso.ok) warnings.push({ key: "SANDBOX_TYPE", message: `the ${config.sandbox.type} sandbox failed its isolation check: ${iso.reason ?? "unknown"}` });
  }
  return { lines, warnings, ...(dashboard ? { dashboard } : {}) };
}
