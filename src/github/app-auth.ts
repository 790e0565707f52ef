import { Probot, ProbotOctokit } from "probot";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import { OpenSweError } from "../errors.js";
import type { GitHubAuth } from "../shared/github-auth.js";

export type Octokit = ProbotOctokit;

export interface GitHubAuthOptions {
  log: Logger;
  /** Tests turn off retries and throttling so a mocked failure fails at once. */
  octokitDefaults?: { retry?: { enabled: boolean }; throttle?: { enabled: boolean } };
}

export function createGitHubAuth(github: NonNullable<AppConfig["github"]>, opts: GitHubAuthOptions): GitHubAuth {
  // A function, not an object: Probot wraps this class with its own throttle options, and an object
  // default is merged shallowly under them (its `throttle.enabled: false` was lost, so "unthrottled"
  // clients still spaced writes 1 s and comments 3 s apart). Applied last, these flags hold.
  const flags = opts.octokitDefaults;
  const Octokit = flags
    ? ProbotOctokit.defaults((options: Record<string, unknown>) => ({
        ...options,
        ...(flags.retry ? { retry: { ...(options["retry"] as object | undefined), ...flags.retry } } : {}),
        ...(flags.throttle ? { throttle: { ...(options["throttle"] as object | undefined), ...flags.throttle } } : {}),
      }))
    : ProbotOctokit;
  const probot = new Probot({
    appId: github.appId,
    privateKey: github.privateKey,
    secret: github.webhookSecret,
    log: opts.log,
    Octokit,
    ...(github.baseUrl ? { baseUrl: github.baseUrl } : {}),
  });
  // Repo-scoped tokens live an hour; a worker reuses one until 10 minutes before it expires.
  const scoped = new Map<string, { token: string; expiresAt: number }>();
  return {
    app: () => probot.auth(),
    installation: (installationId) => probot.auth(installationId),
    async repoInstallation(owner, repo) {
      const app = await probot.auth();
      try {
        const res = await app.request("GET /repos/{owner}/{repo}/installation", { owner, repo });
        return res.data.id;
      } catch (err) {
        if ((err as { status?: number }).status === 404) return null;
        throw err;
      }
    },
    async repoScopedToken(installationId, repo) {
      const key = `${installationId}/${repo.toLowerCase()}`;
      const hit = scoped.get(key);
      if (hit && hit.expiresAt - Date.now() > 10 * 60_000) return hit.token;
      const app = await probot.auth();
      const res = await app.request("POST /app/installations/{installation_id}/access_tokens", {
        installation_id: installationId,
        repositories: [repo],
      });
      if (!res.data.token) throw new OpenSweError("github_auth", `no token returned for ${repo}`);
      scoped.set(key, { token: res.data.token, expiresAt: Date.parse(res.data.expires_at) || Date.now() + 50 * 60_000 });
      return res.data.token;
    },
  };
}
