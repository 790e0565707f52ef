import { describe, expect, it } from "vitest";
import type { AgentJob } from "../../src/queue/schemas.js";
import { markRunStarted } from "../../src/runs/track-run.js";
import { RunIndex } from "../../src/store/run-index.js";
import type { JobContext } from "../../src/worker/job-context.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const job = {
  owner: "octo",
  repo: "hello",
  threadId: "gh:octo/hello#3",
  trigger: "comment",
  source: { kind: "github" },
  requester: { login: "dana", id: 31 },
  text: "@open-swe fix the flaky test\nkeep the backoff",
} as unknown as AgentJob;

describe("markRunStarted: the runs list's entry when an attempt starts", () => {
  it("keeps the request as written; a second attempt of a run still marked running says it resumed after a crash, keeping when it first started", async () => {
    const ctx = { redis: testRedis(), prefix: uniquePrefix(), jobId: "j__gh__crash" } as unknown as JobContext;
    const index = new RunIndex(ctx.redis, ctx.prefix);
    await markRunStarted(ctx, job);
    const first = (await index.get(ctx.jobId))!;
    expect(first).toMatchObject({ status: "running", request: job.text, title: "@open-swe fix the flaky test" });
    expect(first.crashResumedAt).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    await markRunStarted(ctx, job);
    const second = (await index.get(ctx.jobId))!;
    expect(second.startedAt).toBe(first.startedAt);
    expect(second.crashResumedAt).toBeGreaterThan(first.startedAt!);
  });

  it("a run queued from the dashboard starts without a crash note", async () => {
    const ctx = { redis: testRedis(), prefix: uniquePrefix(), jobId: "j__dashboard__x" } as unknown as JobContext;
    const index = new RunIndex(ctx.redis, ctx.prefix);
    await index.put({ runId: ctx.jobId, repo: "octo/hello", threadId: "t", trigger: "comment", source: "dashboard", requester: "dana", title: "x", status: "queued", queuedAt: Date.now() });
    await markRunStarted(ctx, job);
    expect((await index.get(ctx.jobId))!.crashResumedAt).toBeUndefined();
  });
});
