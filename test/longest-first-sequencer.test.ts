import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { LongestFirstSequencer } from "./helpers/longest-first-sequencer.js";

/** A checkout of real files: Vitest's own order reads their sizes from disk (a fallback for files with no cached result). */
const ROOT = mkdtempSync(join(tmpdir(), "sequencer-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** A spec of `project` for `path`; `cached` ms is its duration in Vitest's results cache, `size` its bytes. */
interface Row {
  path: string;
  project: "isolated" | "shared";
  cached?: number;
  size?: number;
}

function order(rows: Row[]): Promise<string[]> {
  const byKey = new Map(rows.map((r) => [`${r.project}:${r.path}`, r]));
  for (const r of rows) {
    mkdirSync(dirname(join(ROOT, r.path)), { recursive: true });
    writeFileSync(join(ROOT, r.path), "x".repeat(r.size ?? 1));
  }
  const ctx = {
    config: { root: ROOT },
    cache: {
      getTestSpecificationResult: (spec: { moduleId: string; project: { name: string } }) => {
        const duration = byKey.get(`${spec.project.name}:${spec.moduleId.slice(ROOT.length + 1)}`)?.cached;
        return duration === undefined ? undefined : { duration, failed: false };
      },
    },
  } as unknown as Vitest;
  const specs = rows.map((r) => ({ moduleId: `${ROOT}/${r.path}`, project: { name: r.project, config: { isolate: r.project === "isolated", sequence: { groupOrder: 0 } } } }));
  return new LongestFirstSequencer(ctx).sort(specs as unknown as TestSpecification[]).then((s) => s.map((spec) => `${spec.project.name}:${spec.moduleId.slice(ROOT.length + 1)}`));
}

describe("LongestFirstSequencer: the longest files start first, so none is the suite's tail", () => {
  it.each<[string, Row[], string[]]>([
    [
      "a fresh clone (no cache): file-seconds.json's lengths, not file sizes; files it does not know come after, largest first",
      [
        { path: "test/small-unknown.test.ts", project: "isolated", size: 10 },
        { path: "test/e2e/agent-crash-resume.test.ts", project: "isolated", size: 3000 },
        { path: "test/big-unknown.test.ts", project: "isolated", size: 50_000 },
        { path: "test/integration/test-isolation.test.ts", project: "isolated", size: 9000 },
      ],
      ["isolated:test/e2e/agent-crash-resume.test.ts", "isolated:test/integration/test-isolation.test.ts", "isolated:test/big-unknown.test.ts", "isolated:test/small-unknown.test.ts"],
    ],
    [
      "this machine's last run (the cache) wins over the table",
      [
        { path: "test/integration/test-isolation.test.ts", project: "isolated", cached: 40_000 },
        { path: "test/e2e/agent-crash-resume.test.ts", project: "isolated", cached: 5_000 },
        { path: "test/cheap.test.ts", project: "isolated", cached: 20 },
      ],
      ["isolated:test/integration/test-isolation.test.ts", "isolated:test/e2e/agent-crash-resume.test.ts", "isolated:test/cheap.test.ts"],
    ],
    [
      "projects stay apart: every isolated file before the shared ones, however long",
      [
        { path: "test/worker/shutdown.test.ts", project: "shared", cached: 90_000 },
        { path: "test/cheap.test.ts", project: "isolated", cached: 20 },
        { path: "test/logger.test.ts", project: "shared", cached: 100 },
        { path: "test/integration/process.test.ts", project: "isolated", cached: 40_000 },
      ],
      ["isolated:test/integration/process.test.ts", "isolated:test/cheap.test.ts", "shared:test/worker/shutdown.test.ts", "shared:test/logger.test.ts"],
    ],
  ])("%s", async (_name, rows, want) => {
    expect(await order(rows)).toEqual(want);
  });
});
