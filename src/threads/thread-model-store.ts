import type { Redis } from "ioredis";
import { keyer } from "../store/keys.js";

const TTL_SECONDS = 90 * 86400;

/** The model a thread asked for (`--model`): the highest layer of the model precedence for its runs. */
export class ThreadModelStore {
  private readonly key: (...p: (string | number)[]) => string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = keyer(`${prefix}:thread`);
  }

  async get(threadId: string): Promise<string | null> {
    return this.redis.get(this.key(threadId, "model"));
  }

  async set(threadId: string, modelId: string): Promise<void> {
    await this.redis.set(this.key(threadId, "model"), modelId, "EX", TTL_SECONDS);
  }
}
