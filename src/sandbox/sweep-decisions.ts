import type { SandboxInfo } from "./types.js";

/** Activity older than this (Redis ms) is idle; null when the idle TTL is off. */
export function idleCutoff(nowMs: number, idleTtlMs: number): number | null {
  return idleTtlMs > 0 ? nowMs - idleTtlMs : null;
}

export interface OrphanFacts {
  /** This deployment's key prefix: sandboxes another deployment made are never ours to remove. */
  prefix: string;
  /** Every sandbox id some thread's key holds right now. */
  recorded: ReadonlySet<string>;
  nowMs: number;
  graceMs: number;
}

/**
 * A sandbox made for one of our threads that no thread records: its creator died between `create` and
 * recording it, or lost the race and could not destroy it. Too young, or of unknown age: it may still
 * be being recorded, so it stays.
 */
export function isOrphanSandbox(info: SandboxInfo, facts: OrphanFacts): boolean {
  if (!info.labels.thread || info.labels.prefix !== facts.prefix) return false;
  if (facts.recorded.has(info.id)) return false;
  const created = info.createdAt === undefined ? Number.NaN : Date.parse(info.createdAt);
  return Number.isFinite(created) && facts.nowMs - created > facts.graceMs;
}

export interface BaseFacts {
  /** Overlay lower layers of the sandboxes that exist (their real paths). */
  inUse: ReadonlySet<string>;
  nowMs: number;
  graceMs: number;
}

/** A shared checkout no sandbox mounts and none has asked for within the grace (its mtime is touched on each use). */
export function isUnusedBase(base: { path: string; mtimeMs: number }, facts: BaseFacts): boolean {
  return !facts.inUse.has(base.path) && facts.nowMs - base.mtimeMs > facts.graceMs;
}
