import type { ChainableCommander, Redis } from "ioredis";
import { keyer } from "./keys.js";

/** Daily counters live this long: the Insights page shows at most 90 days. */
const TTL_SECONDS = 120 * 86400;

/**
 * Counts a run once: KEYS seen marker, month hash. ARGV ttl, then field/increment pairs. A retried job's
 * end, or the same end recorded twice, counts nothing more.
 */
const COUNT_ONCE = `
if not redis.call("set", KEYS[1], "1", "NX", "EX", ARGV[1]) then return 0 end
for i = 2, #ARGV, 2 do redis.call("hincrby", KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call("expire", KEYS[2], ARGV[1])
return 1
`;

/** Durations are kept as a histogram: bucket b holds durations near 1.05^b ms (within 2.5%). */
const DURATION_BASE = 1.05;

/** Pure: the histogram bucket of a duration. */
export function durationBucket(ms: number): number {
  return Math.round(Math.log(Math.max(1, ms)) / Math.log(DURATION_BASE));
}

/** Pure: the duration a bucket stands for (ms). */
export function bucketMs(bucket: number): number {
  return Math.round(DURATION_BASE ** bucket);
}

/**
 * One repository's day as recorded: counter fields (`runs|<outcome>`, `usd_micros|<model>`,
 * `tokens_in|<model>`, `tokens_out|<model>`, `autofix|<result>`, `findings|<raised|fixed|dismissed>`,
 * `dur|<bucket>`: how many runs took about `bucketMs(bucket)`).
 */
export interface InsightsDay {
  repo: string;
  day: string;
  counts: Record<string, number>;
}

/** What one finished agent run adds to its repository's day. */
export interface RunFacts {
  runId: string;
  repo: string;
  at: number;
  outcome: string;
  model?: string;
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  durationMs?: number;
  /** A CI fix run: what it did (pushed, rerun, no_change, failed). */
  autofix?: string;
}

export interface FindingCounts {
  raised: number;
  fixed: number;
  dismissed: number;
}

/** Pure: the UTC day (`YYYY-MM-DD`) of a time. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Pure: the counter increments one run makes (zero ones left out). */
export function runIncrements(f: RunFacts): [string, number][] {
  const model = f.model ?? "unknown";
  const out: [string, number][] = [[`runs|${f.outcome}`, 1]];
  if (f.costUsd !== undefined) out.push([`usd_micros|${model}`, Math.round(f.costUsd * 1_000_000)]);
  if (f.inputTokens) out.push([`tokens_in|${model}`, f.inputTokens]);
  if (f.outputTokens) out.push([`tokens_out|${model}`, f.outputTokens]);
  if (f.autofix) out.push([`autofix|${f.autofix}`, 1]);
  if (f.durationMs !== undefined) out.push([`dur|${durationBucket(f.durationMs)}`, 1]);
  return out.filter(([, n]) => n !== 0);
}

/**
 * Per repository and UTC day, what the Insights page charts: runs by outcome, cost and tokens by model,
 * run durations, CI fix results, review findings raised / fixed / dismissed. Written where each
 * happens, one hash per repository and month (`<day>|<field>`), so reading a window is one HGETALL
 * per repository and month it touches, whatever the number of runs.
 */
export class RunInsights {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:insights`);
  }

  private month(repo: string, day: string): string {
    return this.key("month", repo.toLowerCase(), day.slice(0, 7));
  }

  /** Counts a finished run on the day it ended; once per run id. False when it was already counted. */
  async recordRun(f: RunFacts): Promise<boolean> {
    const day = utcDay(f.at);
    const pairs = runIncrements(f).flatMap(([field, n]) => [`${day}|${field}`, String(n)]);
    const counted = await this.redis.eval(COUNT_ONCE, 2, this.key("seen", f.runId), this.month(f.repo, day), String(TTL_SECONDS), ...pairs);
    return counted === 1;
  }

  /** Adds review finding transitions to `multi` (the findings store's own write), so both land together. */
  countFindings(multi: ChainableCommander, repo: string, at: number, c: FindingCounts): void {
    const day = utcDay(at);
    const key = this.month(repo, day);
    for (const [field, n] of Object.entries(c)) if (n > 0) multi.hincrby(key, `${day}|findings|${field}`, n);
    multi.expire(key, TTL_SECONDS);
  }

  /** The recorded days of these repositories, a row per repository and day asked (empty when nothing was recorded). */
  async read(repos: readonly string[], days: readonly string[]): Promise<InsightsDay[]> {
    if (repos.length === 0 || days.length === 0) return [];
    const months = [...new Set(days.map((d) => d.slice(0, 7)))];
    const pipe = this.redis.pipeline();
    for (const repo of repos) for (const m of months) pipe.hgetall(this.month(repo, m));
    const replies = (await pipe.exec()) ?? [];
    const rows = new Map<string, InsightsDay>();
    for (const repo of repos) for (const day of days) rows.set(`${repo.toLowerCase()} ${day}`, { repo: repo.toLowerCase(), day, counts: {} });
    replies.forEach(([err, hash], i) => {
      if (err) throw err;
      const repo = repos[Math.floor(i / months.length)]!.toLowerCase();
      for (const [field, v] of Object.entries(hash as Record<string, string>)) {
        const row = rows.get(`${repo} ${field.slice(0, 10)}`);
        if (row) row.counts[field.slice(11)] = Number(v);
      }
    });
    return [...rows.values()];
  }
}
