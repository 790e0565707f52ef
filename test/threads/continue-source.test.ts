import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { QueueSet } from "../../src/queue/queues.js";
import { AgentJob } from "../../src/queue/schemas.js";
import { FollowUpQueue } from "../../src/threads/follow-ups.js";
import { RunLocks } from "../../src/threads/run-lock.js";
import { continueIfPending } from "../../src/threads/thread-run.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";
import { findJob } from "../helpers/jobs.js";

const slackRun = AgentJob.parse({
  installationId: 1,
  owner: "octo",
  repo: "hello",
  source: { kind: "slack", ref: { team: "T1", channel: "C1", ts: "1.1", threadTs: "1.1" }, threadKey: "slack:T1:C1:1.1" },
  threadId: "0b7c5a2e-6f1d-5c3e-8a9b-1c2d3e4f5a6b",
  trigger: "comment",
  requester: { login: "dana", id: 31 },
  text: "add a changelog",
  deliveryId: "d1",
});

describe("continuation runs answer where the pending follow-up was asked", () => {
  const setup = () => {
    const prefix = uniquePrefix();
    const redis = testRedis();
    const queues = new QueueSet({ connection: redis, prefix, attempts: 1, signer: testSigner() });
    return {
      queues,
      ctx: {
        locks: new RunLocks(redis, prefix, 60_000),
        followUps: new FollowUpQueue(redis, prefix, 10, testSigner()),
        queues,
        jobId: "run-1",
        log: createLogger("silent"),
        provenance: { via: "slack" as const, principal: null },
      },
    };
  };

  it("a Slack follow-up continues in Slack, with no issue number", async () => {
    const { queues, ctx } = setup();
    await ctx.followUps.push(slackRun.threadId, { text: "and a license", author: "dana", source: "slack", at: 1 });
    const id = await continueIfPending(ctx, slackRun);
    const job = await findJob(queues.queues.agent, id!);
    expect(job?.data).toMatchObject({ source: slackRun.source, trigger: "follow_up" });
    expect(job?.data.number).toBeUndefined();
    await queues.close();
  });

  it("a GitHub comment on the PR a Slack thread opened continues on GitHub, on that PR", async () => {
    const { queues, ctx } = setup();
    const origin = { number: 21, isPullRequest: true, requester: { login: "dana", id: 31 }, comment: { kind: "issue_comment" as const, id: 77 } };
    await ctx.followUps.push(slackRun.threadId, { text: "fix the typo", author: "dana", source: "github", at: 1, origin });
    const id = await continueIfPending(ctx, slackRun);
    expect((await findJob(queues.queues.agent, id!))?.data).toMatchObject({ source: { kind: "github" }, number: 21, isPullRequest: true, comment: { id: 77 } });
    await queues.close();
  });
});
