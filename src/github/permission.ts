import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { OpenSweError, errorMessage } from "../errors.js";
import type { Octokit } from "./app-auth.js";
import { keyer } from "../store/keys.js";

const WRITERS = new Set(["admin", "maintain", "write"]);

/** GitHub gave no answer within the budget: not a denial, and never cached. */
export class GitHubUnreachableError extends OpenSweError<"github_unreachable"> {
  constructor(
    readonly attempts: number,
    cause: unknown,
  ) {
    super("github_unreachable", `GitHub could not be reached to check write access (${attempts} attempts): ${errorMessage(cause)}`, { cause });
  }
}

export interface PermissionCheck {
  /** Or how to get one, asked only when the answer is not cached (the dashboard mints no token for a cached right). */
  octokit: Octokit | (() => Promise<Octokit>);
  redis: Redis;
  prefix: string;
  cacheSeconds: number;
  owner: string;
  repo: string;
  login: string;
  /** Total time for all attempts and waits. */
  budgetMs: number;
  /** Injected by tests (a fake clock): the waits and the time they count against the budget. */
  clock?: { now: () => number; sleep: (ms: number) => Promise<unknown> };
}

/** An answer from GitHub about this person, as opposed to GitHub failing to answer. */
function isAnswer(err: unknown): boolean {
  // 404: no such user (GitHub answers 200 with "none"/"read" for people without access).
  return (err as { status?: number }).status === 404;
}

const PER_ATTEMPT_MS = 10_000;
const backoffMs = (attempt: number) => Math.min(500 * 2 ** (attempt - 1), 8_000);

/** Every role GitHub names that may read a repository (custom roles carry one of these as `permission`). */
const READERS = new Set(["admin", "maintain", "write", "triage", "read"]);

/**
 * What GitHub says this person's role on the repository is (`role_name` covers maintain/triage, and a
 * custom role's base is its `permission`), or "none" for no such user. Only an answer counts: network
 * errors, 5xx, 401/403/429 are retried with backoff within `budgetMs`, then `GitHubUnreachableError`.
 */
async function askRoles(c: PermissionCheck): Promise<string[]> {
  const octokit = typeof c.octokit === "function" ? await c.octokit() : c.octokit;
  const clock = c.clock ?? { now: Date.now, sleep };
  const deadline = clock.now() + c.budgetMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const res = await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
        owner: c.owner,
        repo: c.repo,
        username: c.login,
        // Our loop is the only retry, so the budget holds; one hung connection cannot eat it all.
        request: { retries: 0, signal: AbortSignal.timeout(Math.max(1, Math.min(PER_ATTEMPT_MS, deadline - clock.now()))) },
      });
      return [(res.data.role_name ?? res.data.permission ?? "").toLowerCase(), res.data.permission];
    } catch (err) {
      if (isAnswer(err)) return ["none"];
      const wait = backoffMs(attempt);
      if (clock.now() + wait >= deadline) throw new GitHubUnreachableError(attempt, err);
      await clock.sleep(wait);
    }
  }
}

/**
 * GitHub's answer about writing (`perm`) or reading (`perm-read`), cached `cacheSeconds`: asking about
 * writing caches both answers, and a cached "may write" is a "may read" too.
 */
async function hasRole(c: PermissionCheck, want: "write" | "read"): Promise<boolean> {
  const who = [`${c.owner}/${c.repo}`.toLowerCase(), c.login.toLowerCase()];
  const writeKey = keyer(`${c.prefix}:perm`)(...who);
  const readKey = keyer(`${c.prefix}:perm-read`)(...who);
  if (c.cacheSeconds > 0) {
    const [write, read] = await c.redis.mget(writeKey, readKey);
    if (want === "write" && write != null) return write === "1";
    if (want === "read" && (read != null || write === "1")) return read === "1" || write === "1";
  }
  const roles = await askRoles(c);
  const may = { write: roles.some((role) => WRITERS.has(role)), read: roles.some((role) => READERS.has(role)) };
  // A write answer is a read answer too; a read answer is kept for reads only (a write is asked when it is done).
  if (c.cacheSeconds > 0 && want === "write")
    await c.redis
      .multi()
      .set(writeKey, may.write ? "1" : "0", "EX", c.cacheSeconds)
      .set(readKey, may.read ? "1" : "0", "EX", c.cacheSeconds)
      .exec();
  else if (c.cacheSeconds > 0) await c.redis.set(readKey, may.read ? "1" : "0", "EX", c.cacheSeconds);
  return may[want];
}

/**
 * Can this person make the app act on this repo? Asks GitHub and caches the answer briefly. Only an
 * answer refuses: GitHub failing to answer within `budgetMs` is `GitHubUnreachableError`.
 */
export function hasWriteAccess(c: PermissionCheck): Promise<boolean> {
  return hasRole(c, "write");
}

/**
 * May this person read this repo (read, triage, write, maintain or admin — what GitHub answers for a
 * public repository's passer-by too)? As `hasWriteAccess`, from the same cached answer.
 */
export function hasReadAccess(c: PermissionCheck): Promise<boolean> {
  return hasRole(c, "read");
}
