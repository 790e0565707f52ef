import type { Context } from "hono";
import { GitHubUnreachableError, hasReadAccess, hasWriteAccess } from "../github/permission.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import type { Session } from "./session-store.js";
import { messagePage } from "./views/layout.js";

/** A right asked of GitHub is good this long at most, whatever PERMISSION_CACHE_SECONDS says. */
export const RIGHTS_CACHE_MAX_SECONDS = 300;
/** A dashboard request waits this long at most for GitHub's answer; then it is an outage, said as one. */
const RIGHTS_BUDGET_MAX_MS = 10_000;

export type RepoRight = "write" | "no_write" | "unreachable";
export type RepoReadRight = "read" | "no_read" | "unreachable";
type RightsDeps = Pick<DashboardDeps, "github" | "redis" | "prefix" | "config" | "log">;

/**
 * Asks `check` of GitHub with the installation's token (collaborator permission), cached in Redis at
 * most 5 minutes; fails closed: no GitHub credentials or no installation is false, GitHub failing to
 * answer is "unreachable" (never cached).
 */
async function askRight(deps: RightsDeps, check: typeof hasWriteAccess, login: string, repo: string, installationId: number | undefined): Promise<boolean | "unreachable"> {
  const [owner, name] = repo.split("/");
  if (!deps.github || installationId === undefined || !owner || !name) return false;
  const env = deps.config.env;
  try {
    const github = deps.github;
    return await check({
      octokit: () => github.installation(installationId),
      redis: deps.redis,
      prefix: deps.prefix,
      cacheSeconds: Math.min(env.PERMISSION_CACHE_SECONDS, RIGHTS_CACHE_MAX_SECONDS),
      budgetMs: Math.min(env.PERMISSION_CHECK_BUDGET_SECONDS * 1000, RIGHTS_BUDGET_MAX_MS),
      owner,
      repo: name,
      login,
    });
  } catch (err) {
    if (err instanceof GitHubUnreachableError) return "unreachable";
    // The installation token itself could not be had: GitHub did not answer for the app, not "no".
    deps.log.warn({ login, repo, err: String(err) }, "dashboard: access unknown");
    return "unreachable";
  }
}

/** Can this person write to this repository now? (`askRight`: cached at most 5 minutes, fails closed.) */
export async function repoRightNow(deps: RightsDeps, login: string, repo: string, installationId: number | undefined): Promise<RepoRight> {
  const right = await askRight(deps, hasWriteAccess, login, repo, installationId);
  return right === "unreachable" ? right : right ? "write" : "no_write";
}

/** Can this person read this repository now (any role GitHub names)? As `repoRightNow`, for the dashboard's reads. */
export async function repoReadNow(deps: RightsDeps, login: string, repo: string, installationId: number | undefined): Promise<RepoReadRight> {
  const right = await askRight(deps, hasReadAccess, login, repo, installationId);
  return right === "unreachable" ? right : right ? "read" : "no_read";
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
