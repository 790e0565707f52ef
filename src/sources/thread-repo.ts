import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";

const TTL_SECONDS = 90 * 86_400;

/** The repository a source thread last worked in: a later mention in the thread needs not name it again. */
export class ThreadRepos {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:thread`);
  }

  get(threadId: string): Promise<string | null> {
    return this.redis.get(this.key(threadId, "repo"));
  }

  async set(threadId: string, repo: string): Promise<void> {
    await this.redis.set(this.key(threadId, "repo"), repo.toLowerCase(), "EX", TTL_SECONDS);
  }
}
