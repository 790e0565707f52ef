import type { Redis } from "ioredis";
import type { AppConfig } from "../config/env.js";
import { createSandboxProvider } from "../sandbox/registry.js";
import { RunFeed } from "../store/run-feed.js";
import { SideEffectLedger } from "../store/side-effects.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";
import { StartPriority } from "../threads/start-priority.js";
import { FeedSaver } from "./feed-saver.js";

/** Checkpoints kept per thread namespace: resume needs the latest and its writes; a few more cost little. */
export const KEEP_CHECKPOINTS = 5;

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
    startPriority: new StartPriority(config.env.START_PRIORITY_MS),
  };
}
