import { describe, expect, it } from "vitest";
import { RunIndex, type RunEntry } from "../../src/store/run-index.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const entry = (i: number, repo = "octo/hello"): RunEntry => ({
  runId: `r${i}`,
  repo,
  threadId: `t${i}`,
  trigger: "comment",
  source: "github",
  requester: "dana",
  title: `run ${i}`,
  status: "running",
  queuedAt: 1_000 + i,
});

describe("RunIndex", () => {
  it("pages newest first by cursor, only the viewer's repos, and keeps the newest `keep` runs", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const index = new RunIndex(redis, prefix, 250);
    for (let i = 0; i < 260; i++) await index.put(entry(i, i % 3 === 0 ? "octo/secret" : "Octo/Hello"));
    const repos = new Set(["octo/hello"]);
    const first = await index.list({ repos }, { size: 25 });
    expect(first.entries.map((e) => e.runId).slice(0, 3)).toEqual(["r259", "r257", "r256"]);
    expect(first.entries.every((e) => e.repo === "octo/hello")).toBe(true);
    const seen = new Set(first.entries.map((e) => e.runId));
    let next = first.next;
    for (let pages = 0; next !== undefined && pages < 20; pages++) {
      const page = await index.list({ repos }, { size: 25, before: next });
      for (const e of page.entries) {
        expect(seen.has(e.runId)).toBe(false);
        seen.add(e.runId);
      }
      next = page.next;
    }
    // 250 kept (r10…r259); two in three of them are octo/hello.
    const expected = Array.from({ length: 250 }, (_, k) => k + 10).filter((i) => i % 3 !== 0).length;
    expect(seen.size).toBe(expected);
    expect(await index.get("r5")).toBeNull();
    expect(await redis.zcard(`${prefix}:run-index:by-time`)).toBe(250);
  });

  it("update merges into a known run and leaves an unknown one alone; filters by status", async () => {
    const index = new RunIndex(testRedis(), uniquePrefix());
    await index.put(entry(1));
    await index.put(entry(2));
    expect(await index.update("r1", { status: "stopped", stoppedBy: "dana" })).toMatchObject({ runId: "r1", status: "stopped", stoppedBy: "dana", title: "run 1" });
    expect(await index.update("nope", { status: "failed" })).toBeNull();
    const stopped = await index.list({ repos: new Set(["octo/hello"]), status: "stopped" }, { size: 10 });
    expect(stopped.entries.map((e) => e.runId)).toEqual(["r1"]);
    expect(stopped.next).toBeUndefined();
  });
});
