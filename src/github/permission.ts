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

/**
 * Can this person make the app act on this repo? Asks GitHub (role_name covers maintain/triage) and
 * caches the answer briefly. Only an answer refuses: network errors, 5xx, 401/403/429 are retried with
 * backoff within `budgetMs`, then `GitHubUnreachableError`.
 */
export async function hasWriteAccess(c: PermissionCheck): Promise<boolean> {
  const key = keyer(`${c.prefix}:perm`)(`${c.owner}/${c.repo}`.toLowerCase(), c.login.toLowerCase());
  const cached = c.cacheSeconds > 0 ? await c.redis.get(key) : null;
  if (cached !== null) return cached === "1";
  const octokit = typeof c.octokit === "function" ? await c.octokit() : c.octokit;
  const clock = c.clock ?? { now: Date.now, sleep };
  const deadline = clock.now() + c.budgetMs;
  let allowed: boolean | undefined;
  for (let attempt = 1; allowed === undefined; attempt += 1) {
    try {
      const res = await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
        owner: c.owner,
        repo: c.repo,
        username: c.login,
        // Our loop is the only retry, so the budget holds; one hung connection cannot eat it all.
        request: { retries: 0, signal: AbortSignal.timeout(Math.max(1, Math.min(PER_ATTEMPT_MS, deadline - clock.now()))) },
      });
      const role = (res.data.role_name ?? res.data.permission ?? "").toLowerCase();
      allowed = WRITERS.has(role) || WRITERS.has(res.data.permission);
    } catch (err) {
      if (isAnswer(err)) {
        allowed = false;
        break;
      }
      const wait = backoffMs(attempt);
      if (clock.now() + wait >= deadline) throw new GitHubUnreachableError(attempt, err);
      await clock.sleep(wait);
    }
  }
  if (c.cacheSeconds > 0) await c.redis.set(key, allowed ? "1" : "0", "EX", c.cacheSeconds);
  return allowed;
}
