import type { Redis } from "ioredis";
import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import type { AppConfig } from "../config/env.js";
import type { SandboxCache } from "../sandbox/lifecycle.js";
import { createSandboxProvider } from "../sandbox/registry.js";
import type { SandboxProvider } from "../sandbox/types.js";
import { RunFeed } from "../store/run-feed.js";
import { SideEffectLedger } from "../store/side-effects.js";
import { FeedSaver } from "./feed-saver.js";

/** Checkpoints kept per thread namespace: resume needs the latest and its writes; a few more cost little. */
export const KEEP_CHECKPOINTS = 5;

/** What agent and review runs share within one worker process: built once, at worker start. */
export interface AgentRuntime {
  sandboxProvider: SandboxProvider;
  sandboxCache: SandboxCache;
  checkpointer: RedisSaver;
  effects: SideEffectLedger;
  /** Local sandboxes: this worker's host id (its threads' jobs are routed here; src/queue/host-routes.ts). */
  hostId?: string | undefined;
}

export function createAgentRuntime(config: AppConfig, redis: Redis, prefix: string, hostId?: string): AgentRuntime {
  return {
    hostId,
    sandboxProvider: createSandboxProvider(config.sandbox),
    sandboxCache: new Map(),
    checkpointer: new FeedSaver({
      redis,
      feed: new RunFeed(redis, prefix),
      prefix: `${prefix}:ckpt`,
      ttlSeconds: config.env.CHECKPOINT_TTL_DAYS * 86400,
      keepCheckpoints: KEEP_CHECKPOINTS,
    }),
    effects: new SideEffectLedger(redis, prefix),
  };
}
