import { describe, expect, it } from "vitest";
import { idleCutoff, isOrphanSandbox, isUnusedBase } from "../../src/sandbox/sweep-decisions.js";
import type { SandboxInfo } from "../../src/sandbox/types.js";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const MIN = 60_000;

describe("idleCutoff", () => {
  it.each([
    [0, null],
    [60 * MIN, NOW - 60 * MIN],
  ])("ttl %d → %s", (ttl, want) => expect(idleCutoff(NOW, ttl)).toBe(want));
});

describe("isOrphanSandbox", () => {
  const facts = { prefix: "osw", recorded: new Set(["kept"]), nowMs: NOW, graceMs: 30 * MIN };
  const info = (over: { id?: string; createdAt?: string | null; labels?: Record<string, string> }): SandboxInfo => {
    const createdAt = over.createdAt === undefined ? new Date(NOW - 31 * MIN).toISOString() : over.createdAt;
    return { id: over.id ?? "sb", provider: "local", labels: over.labels ?? { thread: "t", prefix: "osw" }, ...(createdAt === null ? {} : { createdAt }) };
  };
  it.each<[string, SandboxInfo, boolean]>([
    ["ours, unrecorded, past the grace", info({}), true],
    ["recorded by a thread", info({ id: "kept" }), false],
    ["within the grace (may still be being recorded)", info({ createdAt: new Date(NOW - 29 * MIN).toISOString() }), false],
    ["unknown age", info({ createdAt: null }), false],
    ["unparseable age", info({ createdAt: "yesterday" }), false],
    ["another deployment's", info({ labels: { thread: "t", prefix: "other" } }), false],
    ["no prefix label (made before labels)", info({ labels: { thread: "t" } }), false],
    ["not a thread's (preflight, CLI)", info({ labels: { prefix: "osw" } }), false],
  ])("%s → %s", (_name, i, want) => expect(isOrphanSandbox(i, facts)).toBe(want));
});

describe("isUnusedBase", () => {
  const facts = { inUse: new Set(["/m/bases/app/a"]), nowMs: NOW, graceMs: 30 * MIN };
  it.each<[string, { path: string; mtimeMs: number }, boolean]>([
    ["unused and old", { path: "/m/bases/app/b", mtimeMs: NOW - 31 * MIN }, true],
    ["mounted by a sandbox", { path: "/m/bases/app/a", mtimeMs: NOW - 99 * MIN }, false],
    ["used within the grace", { path: "/m/bases/app/b", mtimeMs: NOW - 29 * MIN }, false],
  ])("%s → %s", (_name, b, want) => expect(isUnusedBase(b, facts)).toBe(want));
});
