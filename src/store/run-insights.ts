import type { ChainableCommander, Redis } from "ioredis";
import { keyer } from "./keys.js";

/** Daily counters live this long: the Insights page shows at most 90 days. */
const TTL_SECONDS = 120 * 86400;

/**
 * Counts a run once: KEYS seen marker, day hash, day durations. ARGV ttl, duration ms ("" = none),
 * then field/increment pairs. A retried job's end, or the same end recorded twice, counts nothing more.
 */
const COUNT_ONCE = `
if not redis.call("set", KEYS[1], "1", "NX", "EX", ARGV[1]) then return 0 end
for i = 3, #ARGV, 2 do redis.call("hincrby", KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call("expire", KEYS[2], ARGV[1])
if ARGV[2] ~= "" then
  redis.call("rpush", KEYS[3], ARGV[2])
  redis.call("expire", KEYS[3], ARGV[1])
end
return 1
`;

/** One repository's day as recorded: counter fields (`runs|<outcome>`, `usd_micros|<model>`, …) and run durations. */
export interface InsightsDay {
  repo: string;
  day: string;
  counts: Record<string, number>;
  durationsMs: number[];
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
  return out.filter(([, n]) => n !== 0);
}

/**
 * Per repository and UTC day, what the Insights page charts: runs by outcome, cost and tokens by model,
 * run durations, CI fix results, review findings raised / fixed / dismissed. Written where each
 * happens, so reading a month for a team is a few commands per repository-day, whatever the run count.
 */
export class RunInsights {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:insights`);
  }

  /** Counts a finished run on the day it ended; once per run id. False when it was already counted. */
  async recordRun(f: RunFacts): Promise<boolean> {
    const repo = f.repo.toLowerCase();
    const day = utcDay(f.at);
    const pairs = runIncrements(f).flatMap(([field, n]) => [field, String(n)]);
    const duration = f.durationMs !== undefined ? String(Math.max(0, Math.round(f.durationMs))) : "";
    const counted = await this.redis.eval(COUNT_ONCE, 3, this.key("seen", f.runId), this.key("day", repo, day), this.key("durations", repo, day), String(TTL_SECONDS), duration, ...pairs);
    return counted === 1;
  }

  /** Adds review finding transitions to `multi` (the findings store's own write), so both land together. */
  countFindings(multi: ChainableCommander, repo: string, at: number, c: FindingCounts): void {
    const key = this.key("day", repo.toLowerCase(), utcDay(at));
    for (const [field, n] of Object.entries(c)) if (n > 0) multi.hincrby(key, `findings|${field}`, n);
    multi.expire(key, TTL_SECONDS);
  }

  /** The recorded days of these repositories (one pipeline; days with nothing recorded come back empty). */
  async read(repos: readonly string[], days: readonly string[]): Promise<InsightsDay[]> {
    if (repos.length === 0 || days.length === 0) return [];
    const pipe = this.redis.pipeline();
    const cells = repos.flatMap((repo) => days.map((day) => ({ repo: repo.toLowerCase(), day })));
    for (const { repo, day } of cells) pipe.hgetall(this.key("day", repo, day)).lrange(this.key("durations", repo, day), 0, -1);
    const replies = (await pipe.exec()) ?? [];
    return cells.map((cell, i) => {
      const [hashErr, hash] = replies[2 * i] ?? [];
      const [listErr, list] = replies[2 * i + 1] ?? [];
      if (hashErr) throw hashErr;
      if (listErr) throw listErr;
      const counts = Object.fromEntries(Object.entries((hash ?? {}) as Record<string, string>).map(([k, v]) => [k, Number(v)]));
      return { ...cell, counts, durationsMs: ((list ?? []) as string[]).map(Number) };
    });
  }
}
