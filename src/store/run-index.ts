import type { Redis } from "ioredis";
import { z } from "zod";
import { OpenSweError } from "../errors.js";
import { luaScript } from "../shared/lua-script.js";
import { keyer } from "./keys.js";
import { RunFeed } from "./run-feed.js";

export const RunStatus = z.enum([
  "queued",
  "running",
  "stopped",
  "pr_opened",
  "completed",
  "step_limit",
  "sandbox_failed",
  "incomplete",
  "failed",
  "awaiting_approval",
  "approval_resolved",
  "budget_exceeded",
]);
export type RunStatus = z.infer<typeof RunStatus>;

/** What a runs list shows before the run record exists: where a run is, who asked, and how far it got. */
export const RunEntry = z.object({
  runId: z.string().min(1),
  repo: z.string().min(1),
  threadId: z.string().min(1),
  trigger: z.string().min(1),
  source: z.string().min(1),
  requester: z.string().min(1),
  title: z.string().max(200).default(""),
  status: RunStatus,
  queuedAt: z.number().int(),
  startedAt: z.number().int().optional(),
  finishedAt: z.number().int().optional(),
  stoppedBy: z.string().optional(),
  /** A stopped run: how many pending follow-up messages were dropped with it. */
  droppedFollowUps: z.number().int().min(0).optional(),
  /** A run that paused for approval: the decision (who — null for the timeout —, when) and the run that resumed it. */
  approval: z.object({ id: z.string(), decision: z.enum(["approve", "reject"]), by: z.string().nullable(), at: z.number().int(), resumedRunId: z.string() }).optional(),
  /** A run that resumed a paused one: that run. */
  resumes: z.string().optional(),
  /** The request as the person wrote it (the agent is given a prompt built around it). */
  request: z.string().max(20_000).optional(),
  /** When a new attempt took the run over after the worker running it stopped (crash, lost lock). */
  crashResumedAt: z.number().int().optional(),
});
export type RunEntry = z.infer<typeof RunEntry>;

export interface RunFilter {
  /** Only these repos (lower-case `owner/name`): what the viewer may write. */
  repos: ReadonlySet<string>;
  repo?: string;
  status?: RunStatus;
  source?: string;
}

const SCAN_BATCH = 200;
const MAX_UPDATE_ATTEMPTS = 50;
const setIfUnchanged = luaScript(`if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("SET", KEYS[1], ARGV[2], "KEEPTTL")
return 1`);

/**
 * Every agent run by the time it was queued, newest first: one JSON entry per run and one sorted set
 * ordered by queue time, trimmed to `keep` runs. Pages are cursors on that time (`before`), so a page
 * stays stable while new runs arrive.
 */
export class RunIndex {
  private readonly key: (...p: (string | number)[]) => string;
  private readonly feed: RunFeed;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly keep = 5_000,
  ) {
    this.key = keyer(`${prefix}:run-index`);
    this.feed = new RunFeed(redis, prefix);
  }

  async put(entry: RunEntry): Promise<void> {
    const e = RunEntry.parse({ ...entry, repo: entry.repo.toLowerCase() });
    const trimmed = await this.redis
      .multi()
      .set(this.key("run", e.runId), JSON.stringify(e), "EX", 90 * 86400)
      .zadd(this.key("by-time"), e.queuedAt, e.runId)
      .zrange(this.key("by-time"), "0", String(-this.keep - 1))
      .zremrangebyrank(this.key("by-time"), 0, -this.keep - 1)
      .exec();
    const old = (trimmed?.[2]?.[1] as string[] | undefined) ?? [];
    if (old.length > 0) await this.redis.del(...old.map((id) => this.key("run", id)));
    await this.feed.changed(e.threadId);
  }

  async get(runId: string): Promise<RunEntry | null> {
    const raw = await this.redis.get(this.key("run", runId));
    return raw ? RunEntry.parse(JSON.parse(raw)) : null;
  }

  /**
   * Merges `patch` into an existing entry; an unknown run (a GitHub run queued before this index existed) is left alone.
   * The worker finishing a run and a dashboard's Stop may patch one entry at once: the write lands only on the
   * entry it was merged into, and is merged again otherwise, so neither patch undoes the other.
   */
  async update(runId: string, patch: Partial<Omit<RunEntry, "runId">>): Promise<RunEntry | null> {
    const key = this.key("run", runId);
    for (let attempt = 1; ; attempt++) {
      const raw = await this.redis.get(key);
      if (!raw) return null;
      const next = RunEntry.parse({ ...RunEntry.parse(JSON.parse(raw)), ...patch });
      if ((await setIfUnchanged(this.redis, 1, key, raw, JSON.stringify(next))) === 1) {
        await this.feed.changed(next.threadId);
        return next;
      }
      if (attempt >= MAX_UPDATE_ATTEMPTS) throw new OpenSweError("run_index_contended", `run ${runId}'s index entry kept changing under ${attempt} updates`);
    }
  }

  /** One page of runs that pass `filter`, newest first; `next` is the cursor of the page after it. */
  async list(filter: RunFilter, page: { before?: number; size: number }): Promise<{ entries: RunEntry[]; next?: number }> {
    const entries: RunEntry[] = [];
    let max = page.before !== undefined ? `(${page.before}` : "+inf";
    // Bounded: the index holds at most `keep` runs, read SCAN_BATCH at a time.
    for (let scanned = 0; scanned < this.keep && entries.length <= page.size; scanned += SCAN_BATCH) {
      const batch = await this.redis.zrevrangebyscore(this.key("by-time"), max, "-inf", "WITHSCORES", "LIMIT", 0, SCAN_BATCH);
      if (batch.length === 0) break;
      const ids = batch.filter((_, i) => i % 2 === 0);
      const raws = await this.redis.mget(...ids.map((id) => this.key("run", id)));
      for (const raw of raws) {
        if (!raw) continue;
        const e = RunEntry.parse(JSON.parse(raw));
        if (matches(e, filter)) entries.push(e);
      }
      max = `(${batch[batch.length - 1]}`;
      if (ids.length < SCAN_BATCH) break;
    }
    const shown = entries.slice(0, page.size);
    return entries.length > page.size ? { entries: shown, next: shown[shown.length - 1]!.queuedAt } : { entries: shown };
  }
}

/** Pure: does a run pass the viewer's repos and the chosen filters? */
export function matches(e: RunEntry, f: RunFilter): boolean {
  if (!f.repos.has(e.repo)) return false;
  if (f.repo && e.repo !== f.repo.toLowerCase()) return false;
  if (f.status && e.status !== f.status) return false;
  if (f.source && e.source !== f.source) return false;
  return true;
}
