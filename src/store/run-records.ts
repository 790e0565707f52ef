import type { Redis } from "ioredis";
import type { RunRecord } from "../shared/run-record.js";
import { keyer } from "./keys.js";

/** Every run's record (trigger, model, tokens, cost, duration, tools, outcome, PR), newest first. */
export class RunRecords {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly keep = 5_000,
  ) {
    this.key = keyer(`${prefix}:runs`);
  }

  async save(runId: string, record: RunRecord): Promise<void> {
    await this.redis
      .multi()
      .set(this.key("by-id", runId), JSON.stringify(record), "EX", 90 * 86400)
      .lpush(this.key("recent"), runId)
      .ltrim(this.key("recent"), 0, this.keep - 1)
      .exec();
  }

  async get(runId: string): Promise<RunRecord | null> {
    const raw = await this.redis.get(this.key("by-id", runId));
    return raw ? (JSON.parse(raw) as RunRecord) : null;
  }

  async recent(limit = 20): Promise<string[]> {
    return this.redis.lrange(this.key("recent"), 0, limit - 1);
  }
}
