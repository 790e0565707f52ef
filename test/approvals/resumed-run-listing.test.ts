import pino from "pino";
import { describe, expect, it } from "vitest";
import { approvalStore, decideApproval } from "../../src/approvals/handle-approval.js";
import { AgentJob } from "../../src/queue/schemas.js";
import { markRunStarted } from "../../src/runs/track-run.js";
import { RunIndex } from "../../src/store/run-index.js";
import type { JobContext } from "../../src/threads/job-context.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const job = AgentJob.parse({
  installationId: 1,
  owner: "octo",
  repo: "hello",
  number: 7,
  threadId: "0b7c5a2e-6f1d-5c3e-8a9b-1c2d3e4f5a6b",
  trigger: "comment",
  requester: { login: "dana", id: 31 },
  text: "deploy it",
  deliveryId: "d1",
});

describe("a decided approval's resumed run in the runs list", () => {
  it("points back at the paused run even when a worker starts it the moment it is queued", async () => {
    const redis = testRedis();
    const prefix = uniquePrefix();
    const config = { env: { APPROVAL_TIMEOUT_MINUTES: 60 } } as JobContext["config"];
    const index = new RunIndex(redis, prefix);
    await index.put({
      runId: "paused-1",
      repo: "octo/hello",
      threadId: job.threadId,
      trigger: "comment",
      source: "github",
      requester: "dana",
      title: "deploy it",
      status: "awaiting_approval",
      queuedAt: 1,
    });
    const store = approvalStore({ redis, prefix, config });
    await store.create({ id: "0a1b2c3d", threadId: job.threadId, job, calls: [{ name: "execute", preview: "make deploy" }], requestedAt: Date.now(), runId: "paused-1" });
    const started: string[] = [];
    // A worker that picks the resumed job up at once: its start is listed before add() even returns.
    const queues = {
      add: async (_queue: string, data: AgentJob, id: string) => {
        await markRunStarted({ redis, prefix, jobId: id } as JobContext, data);
        started.push(id);
        return id;
      },
      queues: { command: { remove: async () => 0 } },
    } as unknown as JobContext["queues"];
    const d = await decideApproval({ redis, prefix, config, queues, log: pino({ level: "silent" }) }, {
      approvalId: "0a1b2c3d",
      login: "dana",
      decision: "approve",
      inScope: () => true,
      canWrite: async () => true,
      via: "github-webhook",
    } as Parameters<typeof decideApproval>[1]);
    expect(d.result).toBe("resolved");
    const resumedId = (d as { resumed: string }).resumed;
    expect(started).toEqual([resumedId]);
    expect(await index.get("paused-1")).toMatchObject({ status: "approval_resolved", approval: { decision: "approve", by: "dana", resumedRunId: resumedId } });
    expect(await index.get(resumedId)).toMatchObject({ runId: resumedId, trigger: "approval", status: "running", resumes: "paused-1" });
  });
});
