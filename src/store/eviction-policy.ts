import type { Redis } from "ioredis";

/** Redis's `maxmemory-policy` from `INFO memory` (managed services often refuse `CONFIG GET`); null if unreadable. */
export async function readEvictionPolicy(redis: Redis): Promise<string | null> {
  const info = await redis.info("memory");
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1] ?? null;
}

/** The one warning for a Redis that may evict keys (BullMQ's jobs and locks, our run locks); null when it is `noeviction`. Pure. */
export function evictionProblem(policy: string | null): string | null {
  if (policy === "noeviction") return null;
  if (policy === null) return "could not read Redis's maxmemory-policy: it must be noeviction, or Redis may delete jobs, locks and checkpoints when memory is full";
  return `Redis's maxmemory-policy is ${policy}, not noeviction: when memory is full Redis deletes keys — jobs, their locks, run locks, checkpoints — and runs are lost or run twice; set maxmemory-policy noeviction`;
}
