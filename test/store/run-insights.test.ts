import { describe, expect, it } from "vitest";
import { durationBucket, RunInsights, runIncrements, utcDay, type RunFacts } from "../../src/store/run-insights.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const AT = Date.parse("2026-12-01T10:00:00Z");
const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  runId: "r1",
  repo: "Octo/Hello",
  at: AT,
  outcome: "completed",
  model: "sonnet",
  costUsd: 0.1512,
  inputTokens: 100,
  outputTokens: 20,
  durationMs: 94_000,
  ...over,
});

describe("runIncrements", () => {
  it.each([
    [
      facts(),
      [
        ["runs|completed", 1],
        ["usd_micros|sonnet", 151_200],
        ["tokens_in|sonnet", 100],
        ["tokens_out|sonnet", 20],
        [`dur|${durationBucket(94_000)}`, 1],
      ],
    ],
    [{ runId: "r", repo: "o/r", at: AT, outcome: "failed", inputTokens: 0 }, [["runs|failed", 1]]],
    [
      { runId: "r", repo: "o/r", at: AT, outcome: "completed", model: "m", costUsd: 0, autofix: "pushed" },
      [
        ["runs|completed", 1],
        ["autofix|pushed", 1],
      ],
    ],
  ])("%#", (f, want) => expect(runIncrements(f)).toEqual(want));
});

describe("RunInsights (real Redis)", () => {
  it("counts a run once on its UTC day, its duration in a bucket, and reads back per repository-day across months", async () => {
    const insights = new RunInsights(testRedis(), uniquePrefix());
    expect(await insights.recordRun(facts())).toBe(true);
    // The same run's end recorded again (a retried job's end) adds nothing.
    expect(await insights.recordRun(facts({ durationMs: 5 }))).toBe(false);
    expect(await insights.recordRun(facts({ runId: "r2", outcome: "failed", costUsd: 1, durationMs: 30_000 }))).toBe(true);
    expect(await insights.recordRun(facts({ runId: "r3", repo: "octo/other", at: AT - 86_400_000 }))).toBe(true);
    // Another month: the window spans two hashes.
    expect(await insights.recordRun(facts({ runId: "r4", at: Date.parse("2026-11-30T23:59:59Z"), durationMs: 30_000 }))).toBe(true);
    const days = [utcDay(AT - 86_400_000), utcDay(AT)];
    const d94 = `dur|${durationBucket(94_000)}`;
    const d30 = `dur|${durationBucket(30_000)}`;
    const read = await insights.read(["octo/hello", "OCTO/OTHER"], days);
    expect(read).toEqual([
      { repo: "octo/hello", day: "2026-11-30", counts: { "runs|completed": 1, "usd_micros|sonnet": 151_200, "tokens_in|sonnet": 100, "tokens_out|sonnet": 20, [d30]: 1 } },
      {
        repo: "octo/hello",
        day: "2026-12-01",
        counts: { "runs|completed": 1, "runs|failed": 1, "usd_micros|sonnet": 1_151_200, "tokens_in|sonnet": 200, "tokens_out|sonnet": 40, [d94]: 1, [d30]: 1 },
      },
      { repo: "octo/other", day: "2026-11-30", counts: { "runs|completed": 1, "usd_micros|sonnet": 151_200, "tokens_in|sonnet": 100, "tokens_out|sonnet": 20, [d94]: 1 } },
      { repo: "octo/other", day: "2026-12-01", counts: {} },
    ]);
    // A day outside the asked window is not returned, though its month is read.
    expect((await insights.read(["octo/hello"], ["2026-12-02"]))[0]!.counts).toEqual({});
    expect(await insights.read([], days)).toEqual([]);
  });

  it("adds finding transitions inside the caller's transaction", async () => {
    const redis = testRedis();
    const insights = new RunInsights(redis, uniquePrefix());
    const multi = redis.multi();
    insights.countFindings(multi, "Octo/Hello", AT, { raised: 2, fixed: 0, dismissed: 1 });
    await multi.exec();
    expect((await insights.read(["octo/hello"], ["2026-12-01"]))[0]!.counts).toEqual({ "findings|raised": 2, "findings|dismissed": 1 });
  });
});
