import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { z } from "zod";
import { keyer } from "./keys.js";
import { headInBase } from "../shared/head-in-base.js";
import { prRef } from "../shared/thread-id.js";

const TTL_SECONDS = 180 * 86400;
const SEAL_HEX = 64;
/** `JobSigner`'s seal under this store's domain (the store sits below the queue layer: only its shape is named here). */
interface Sealer {
  seal(domain: "pr-thread-requester v1", text: string): string;
  holds(domain: "pr-thread-requester v1", text: string, seal: string): boolean;
}
/** What a thread's requester's seal covers: its thread and its exact JSON (moved to another thread, it no longer holds). */
const sealedRequester = (threadId: string, json: string): string => `${threadId}\n${json}`;
const THREAD_MARKER = /<!-- open-swe:thread=([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) -->/;

/** The thread id in the marker our PR bodies carry, or null. */
export function threadMarker(body: string | null | undefined): string | null {
  return THREAD_MARKER.exec(body ?? "")?.[1] ?? null;
}

export const ThreadRequester = z.object({ login: z.string().min(1), id: z.number().int() });
export type ThreadRequester = z.infer<typeof ThreadRequester>;

export const WatchedPr = z.object({ installationId: z.number().int(), owner: z.string().min(1), repo: z.string().min(1), number: z.number().int().positive() });
export type WatchedPr = z.infer<typeof WatchedPr>;

export interface PullRequestFacts {
  owner: string;
  repo: string;
  number: number;
  body: string | null | undefined;
  /** The PR's author: a marker counts only in a PR our app opened (anyone can write one into their own PR). */
  authorLogin: string | null | undefined;
  /**
   * Head branch and the repository it lives in (`head.repo.full_name`, null for a deleted fork), when the
   * event carries them (review events do; issue comments do not). A branch counts only in the base repository.
   */
  head?: { ref: string; repo: string | null } | null | undefined;
}

/**
 * Which conversation a PR belongs to: a PR the agent opened is part of the thread that opened it, so a
 * comment there reaches that thread's lock, follow-ups, sandbox and checkpoint. Null: a PR of its own.
 */
export class PrThreads {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly signer: Sealer,
    private readonly log?: Pick<Logger, "warn">,
  ) {
    this.key = keyer(`${prefix}:prthread`);
  }

  /**
   * Called when a run opens or updates its PR; the requester is who a CI fix run acts for. With the
   * installation, the PR is watched by the `ci-monitor` sweep until it is seen closed.
   */
  async record(pr: { owner: string; repo: string; number: number; branch: string }, threadId: string, requester?: ThreadRequester, installationId?: number): Promise<void> {
    // The agent pushes its branch to the base repository: that is the branch's head repository.
    const base = `${pr.owner}/${pr.repo}`;
    const tx = this.redis
      .multi()
      .set(this.key("pr", prRef(pr.owner, pr.repo, pr.number)), threadId, "EX", TTL_SECONDS)
      .set(this.branchKey(base, base, pr.branch), threadId, "EX", TTL_SECONDS);
    if (requester) {
      const json = JSON.stringify(ThreadRequester.parse(requester));
      tx.set(this.key("requester", threadId), this.signer.seal("pr-thread-requester v1", sealedRequester(threadId, json)) + json, "EX", TTL_SECONDS);
    }
    if (installationId !== undefined) {
      const ref = prRef(pr.owner, pr.repo, pr.number);
      tx.hset(this.key("watch"), ref, JSON.stringify({ installationId, owner: pr.owner, repo: pr.repo, number: pr.number } satisfies WatchedPr));
    }
    await tx.exec();
  }

  /** Our PRs the `ci-monitor` sweep looks at (at most `limit`). */
  async watched(limit = 500): Promise<WatchedPr[]> {
    const out: WatchedPr[] = [];
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.key("watch"), cursor, "COUNT", 200);
      cursor = next;
      for (let i = 1; i < flat.length; i += 2) {
        const parsed = WatchedPr.safeParse(JSON.parse(flat[i]!));
        if (parsed.success && out.length < limit) out.push(parsed.data);
      }
    } while (cursor !== "0" && out.length < limit);
    return out;
  }

  async unwatch(pr: { owner: string; repo: string; number: number }): Promise<void> {
    await this.redis.hdel(this.key("watch"), prRef(pr.owner, pr.repo, pr.number));
  }

  /**
   * Who started the thread that opened a PR — who a CI fix run acts for —, or null when no run recorded it
   * (a marker-only PR). Stored MAC'd by the worker (`JobSigner.seal`, domain `pr-thread-requester v1`, bound
   * to its thread): one whose seal does not hold (a SET by hand, written before the seal) names nobody, with
   * one warning.
   */
  async requester(threadId: string): Promise<ThreadRequester | null> {
    const raw = await this.redis.get(this.key("requester", threadId));
    if (!raw) return null;
    const json = raw.slice(SEAL_HEX);
    if (!this.signer.holds("pr-thread-requester v1", sealedRequester(threadId, json), raw.slice(0, SEAL_HEX))) {
      this.log?.warn({ threadId }, "PR thread requester ignored: its seal does not hold (written outside the worker, or altered)");
      return null;
    }
    const parsed = ThreadRequester.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  }

  /** A branch by base repository, head repository and name: a fork's branch of the same name is another key. */
  private branchKey(base: string, headRepo: string, ref: string): string {
    return this.key("head", base.toLowerCase(), headRepo.toLowerCase(), ref);
  }

  /**
   * The keys that may name a PR's originating thread, in precedence order (by PR number, then head
   * branch). The webhook path hands them to `QueueSet.add` (`threadFrom`), read in the route's round trip.
   * The branch is looked up only when the head is in the base repository (`headInBase`): a fork's PR, or one
   * whose head repository is unknown, is matched by its number alone. Keys written before the head repository
   * was part of them (`branch:<repo>:<ref>`, only ever for the agent's branches in the base repository) are
   * read last, under the same condition, until they expire.
   */
  originKeys(pr: Pick<PullRequestFacts, "owner" | "repo" | "number" | "head">): string[] {
    const byPr = this.key("pr", prRef(pr.owner, pr.repo, pr.number));
    if (!pr.head || !headInBase(pr.head.repo, pr)) return [byPr];
    const base = `${pr.owner}/${pr.repo}`;
    return [byPr, this.branchKey(base, pr.head.repo!, pr.head.ref), this.key("branch", base.toLowerCase(), pr.head.ref)];
  }

  async origin(pr: PullRequestFacts, appLogin: string): Promise<string | null> {
    for (const key of this.originKeys(pr)) {
      const thread = await this.redis.get(key);
      if (thread) return thread;
    }
    return markedOrigin(pr, appLogin);
  }
}

/** Pure: the thread named by the marker of a PR our app opened (the last resort after the recorded keys), or null. */
export function markedOrigin(pr: Pick<PullRequestFacts, "body" | "authorLogin">, appLogin: string): string | null {
  return pr.authorLogin?.toLowerCase() === appLogin.toLowerCase() ? threadMarker(pr.body) : null;
}
