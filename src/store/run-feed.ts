import type { Redis } from "ioredis";
import { keyer } from "./keys.js";

/** Steps kept per thread: enough for a long run's step times; older steps show no time. */
const FEED_MAX_STEPS = 2_000;
const FEED_TTL_SECONDS = 30 * 86400;

/** When a thread's conversation grew from `from` to `messages` messages: one entry per checkpoint that added some. */
export interface FeedStep {
  at: number;
  from: number;
  messages: number;
}

/**
 * A thread's live feed in Redis: a stream of (time, message count) per step the worker checkpoints, and
 * a pub/sub channel told of every step and every status change of a run on the thread. Viewers wait on
 * the channel (nothing is read while a run is idle) and read the stream for each step's times.
 */
export class RunFeed {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:run-feed`);
  }

  /** The channel a web process subscribes to for a thread's runs. */
  channel(threadId: string): string {
    return this.key("live", threadId);
  }

  /** A checkpoint was written: record when the conversation grew from `from` to `messages` (if it did) and tell viewers. */
  async step(threadId: string, from: number, messages: number): Promise<void> {
    const m = this.redis.multi();
    if (messages > from) m.xadd(this.key("steps", threadId), "MAXLEN", "~", FEED_MAX_STEPS, "*", "f", String(from), "n", String(messages)).expire(this.key("steps", threadId), FEED_TTL_SECONDS);
    await m.publish(this.channel(threadId), "step").exec();
  }

  /** A run on the thread changed state (status, end, stop): tell viewers. */
  async changed(threadId: string): Promise<void> {
    await this.redis.publish(this.channel(threadId), "status");
  }

  async steps(threadId: string): Promise<FeedStep[]> {
    const entries = await this.redis.xrange(this.key("steps", threadId), "-", "+");
    return entries.flatMap(([id, fields]) => {
      const n = Number(fields[fields.indexOf("n") + 1]);
      const f = Number(fields[fields.indexOf("f") + 1]);
      return Number.isInteger(n) && Number.isInteger(f) ? [{ at: Number(id.split("-")[0]), from: f, messages: n }] : [];
    });
  }
}

/** When a message of the conversation started and ended (ms epoch). */
export interface StepTime {
  start?: number;
  end: number;
}

/**
 * Pure: each message's time from the feed. Message i ended at the first step that added it; it started
 * when the message before it ended — for a tool result, when the agent message that called it ended
 * (parallel calls start together); a person's message has only its time. Unknown (older than the feed,
 * trimmed): null.
 */
export function stepTimes(steps: readonly FeedStep[], kinds: readonly string[]): (StepTime | null)[] {
  const ends: (number | null)[] = kinds.map(() => null);
  for (const s of steps) {
    for (let i = Math.max(0, s.from); i < s.messages && i < kinds.length; i++) ends[i] ??= s.at;
  }
  let lastAgentEnd: number | null = null;
  return kinds.map((kind, k) => {
    const end = ends[k];
    if (end === null || end === undefined) return null;
    const prev = k > 0 ? ends[k - 1] : null;
    const start = kind === "tool" ? (lastAgentEnd ?? prev) : prev;
    if (kind === "ai") lastAgentEnd = end;
    else if (kind !== "tool") lastAgentEnd = null;
    return start === null || start === undefined || kind === "human" ? { end } : { start, end };
  });
}
