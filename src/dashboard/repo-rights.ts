import type { Context } from "hono";
import { GitHubUnreachableError, hasWriteAccess } from "../github/permission.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import type { Session } from "./session-store.js";
import { messagePage } from "./views/layout.js";

/** A right asked of GitHub is good this long at most, whatever PERMISSION_CACHE_SECONDS says. */
export const RIGHTS_CACHE_MAX_SECONDS = 300;
/** A dashboard request waits this long at most for GitHub's answer; then it is an outage, said as one. */
const RIGHTS_BUDGET_MAX_MS = 10_000;

export type RepoRight = "write" | "no_write" | "unreachable";

/**
 * Can this person write to this repository now? Asked of GitHub with the installation's token
 * (collaborator permission), cached in Redis at most 5 minutes; fails closed: no GitHub credentials
 * or no installation is "no_write", GitHub failing to answer is "unreachable" (never cached).
 */
export async function repoRightNow(deps: Pick<DashboardDeps, "github" | "redis" | "prefix" | "config" | "log">, login: string, repo: string, installationId: number | undefined): Promise<RepoRight> {
  const [owner, name] = repo.split("/");
  if (!deps.github || installationId === undefined || !owner || !name) return "no_write";
  const env = deps.config.env;
  try {
    const github = deps.github;
    const allowed = await hasWriteAccess({
      octokit: () => github.installation(installationId),
      redis: deps.redis,
      prefix: deps.prefix,
      cacheSeconds: Math.min(env.PERMISSION_CACHE_SECONDS, RIGHTS_CACHE_MAX_SECONDS),
      budgetMs: Math.min(env.PERMISSION_CHECK_BUDGET_SECONDS * 1000, RIGHTS_BUDGET_MAX_MS),
      owner,
      repo: name,
      login,
    });
    return allowed ? "write" : "no_write";
  } catch (err) {
    if (err instanceof GitHubUnreachableError) return "unreachable";
    // The installation token itself could not be had: GitHub did not answer for the app, not "no".
    deps.log.warn({ login, repo, err: String(err) }, "dashboard: write access unknown");
    return "unreachable";
  }
}

/**
 * For a route about to act on `repo`: null when the signed-in person may write to it now; otherwise
 * the page that says why (403 no longer a writer, 503 GitHub could not be asked).
 */
export async function refuseUnlessWriter(
  c: Context<DashboardEnv>,
  deps: DashboardDeps,
  session: Session,
  repo: string,
  what: string,
  installationId = session.installations[repo],
): Promise<Response | null> {
  const right = await repoRightNow(deps, session.login, repo, installationId);
  if (right === "write") return null;
  const back = { href: "/app", label: "Dashboard" };
  if (right === "unreachable") {
    deps.log.warn({ login: session.login, repo, what }, "dashboard action refused: GitHub unreachable for the write-access check");
    return c.html(
      messagePage("GitHub could not be reached", session, `GitHub did not answer when asked whether you can write to ${repo}, so nothing was done (${what}). Try again in a minute.`, back),
      503,
    );
  }
  deps.log.info({ login: session.login, repo, what }, "dashboard action refused: no write access now");
  return c.html(messagePage("Refused", session, `GitHub says you cannot write to ${repo} now, so nothing was done (${what}). Sign in again if your access changed.`, back), 403);
}
