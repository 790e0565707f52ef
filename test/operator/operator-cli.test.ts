import { Worker } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/shared/run-record.js";
import { QueueSet } from "../../src/queue/queues.js";
import { hostQueueName, hostsKey } from "../../src/queue/host-routes.js";
import { runOperatorCli } from "../../src/operator/operator-cli.js";
import { RunRecords } from "../../src/store/run-records.js";
import { UsageError } from "../../src/operator/settings-cli.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";
import { testSigner } from "../helpers/job-signer.js";

const record = (o: Partial<RunRecord>): RunRecord => ({
  threadId: "t",
  trigger: "issue_comment",
  modelId: "anthropic:claude-sonnet-4-6",
  effort: "medium",
  replayed: false,
  startedAt: "2026-12-01T10:00:00.000Z",
  durationMs: 1000,
  modelCalls: 3,
  inputTokens: 10,
  outputTokens: 5,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  toolCounts: { execute: 2 },
  outcome: "completed",
  ...o,
});

const agentJob = (owner: string, repo: string) => ({
  installationId: 1,
  owner,
  repo,
  number: 1,
  threadId: "00000000-0000-4000-8000-000000000000",
  requester: { login: "a", id: 1 },
  request: { kind: "issue_comment", commentId: 1, body: "x" },
  deliveryId: "d",
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function setup() {
  const redis = testRedis();
  const prefix = uniquePrefix();
  const queues = new QueueSet({ connection: redis, prefix, attempts: 1, signer: testSigner() });
  closers.push(() => queues.close());
  const runs = new RunRecords(redis, prefix);
  const out: string[] = [];
  /** `ls` as JSON (`--json`; its default is a table). */
  const cli = async (...argv: string[]) => {
    out.length = 0;
    await runOperatorCli(argv[1] === "ls" ? [...argv, "--json"] : argv, { runs, queues }, (l) => out.push(l));
    return JSON.parse(out.join("\n")) as unknown;
  };
  /** What a command prints, as given (no --json added). */
  const text = async (...argv: string[]) => {
    const lines: string[] = [];
    await runOperatorCli(argv, { runs, queues }, (l) => lines.push(l));
    return lines.join("\n");
  };
  return { redis, prefix, queues, runs, cli, text };
}

describe("open-swe runs / jobs", () => {
  it("runs ls filters by repo and status; runs show prints the whole record", async () => {
    const { queues, runs, cli } = await setup();
    for (const [id, owner, outcome] of [
      ["r1", "octo", "pr_opened"],
      ["r2", "acme", "failed"],
      ["r3", "octo", "failed"],
    ] as const) {
      await queues.queues.agent.add("agent", agentJob(owner, "hello"), { jobId: id });
      await runs.save(id, record({ outcome, ...(outcome === "pr_opened" ? { prUrl: "https://github.com/octo/hello/pull/2" } : {}) }));
    }
    expect(((await cli("runs", "ls")) as Array<{ id: string }>).map((r) => r.id)).toEqual(["r3", "r2", "r1"]);
    expect(((await cli("runs", "ls", "--repo", "octo/hello", "--status", "failed")) as Array<{ id: string; repo: string }>).map((r) => [r.id, r.repo])).toEqual([["r3", "octo/hello"]]);
    expect(await cli("runs", "show", "r1")).toMatchObject({
      id: "r1",
      repo: "octo/hello",
      outcome: "pr_opened",
      prUrl: "https://github.com/octo/hello/pull/2",
      toolCounts: { execute: 2 },
      modelCalls: 3,
    });
  });

  it("runs ls and jobs ls print a table by default; --json prints the same rows as a JSON array", async () => {
    const { queues, runs, text } = await setup();
    await queues.queues.agent.add("agent", agentJob("octo", "hello"), { jobId: "r1" });
    await runs.save("r1", record({ outcome: "pr_opened", costUsd: 0.4217, prUrl: "https://github.com/octo/hello/pull/2" }));
    expect((await text("runs", "ls")).split("\n")).toEqual([
      expect.stringMatching(/^ID +REPO +SOURCE +OUTCOME +MODEL +STARTED +SECONDS +COST +PR$/),
      expect.stringMatching(/^r1 +octo\/hello +github +pr_opened +anthropic:claude-sonnet-4-6 +2026-12-01T10:00:00\.000Z +1 +\$0\.42 +https:\/\/github\.com\/octo\/hello\/pull\/2$/),
    ]);
    expect(JSON.parse(await text("runs", "ls", "--json"))).toEqual([expect.objectContaining({ id: "r1", repo: "octo/hello", outcome: "pr_opened", costUsd: 0.4217 })]);
    expect((await text("jobs", "ls", "agent", "--state", "waiting")).split("\n")).toEqual([
      expect.stringMatching(/^ID +QUEUE +STATE +ATTEMPTS +CREATED +FAILED REASON$/),
      expect.stringMatching(/^r1 +agent +waiting +0 +\d{4}-\d\d-\d\dT[\d:.]+Z +-$/),
    ]);
    expect(JSON.parse(await text("jobs", "ls", "agent", "--state", "waiting", "--json"))).toEqual([expect.objectContaining({ id: "r1", queue: "agent", state: "waiting", attemptsMade: 0 })]);
  });

  it("jobs ls --state failed lists the failure; jobs retry sends it back to waiting", async () => {
    const { redis, prefix, queues, cli } = await setup();
    await queues.add("cleanup", { installationId: 1, owner: "o", repo: "r", number: 1, threadIds: ["00000000-0000-4000-8000-000000000000"], merged: false, deliveryId: "j1" }, "j1", {
      via: "github-webhook",
    });
    const connection = redis.duplicate();
    closers.push(async () => connection.disconnect());
    const worker = new Worker(
      "cleanup",
      async () => {
        throw new Error("boom");
      },
      { connection, prefix },
    );
    await new Promise<void>((r) => worker.once("failed", () => r()));
    await worker.close();
    expect(await cli("jobs", "ls", "cleanup", "--state", "failed")).toEqual([expect.objectContaining({ id: "j1", queue: "cleanup", state: "failed", failedReason: "boom" })]);
    expect(await cli("jobs", "retry", "j1")).toMatchObject({ id: "j1", state: "waiting" });
  });

  it("a job waiting in a host's own queue (agent@<host>) is listed, retried and found for its run like any other", async () => {
    const { redis, prefix, queues, runs, cli } = await setup();
    await redis.sadd(hostsKey(prefix), "h1");
    const hostQueue = hostQueueName("agent", "h1");
    await queues.hostQueue("agent", "h1").add("agent", agentJob("octo", "hosted"), { jobId: "hj1" });
    await runs.save("hj1", record({ outcome: "failed" }));
    const connection = redis.duplicate();
    closers.push(async () => connection.disconnect());
    const worker = new Worker(
      hostQueue,
      async () => {
        throw new Error("sandbox gone");
      },
      { connection, prefix },
    );
    await new Promise<void>((r) => worker.once("failed", () => r()));
    await worker.close();
    expect(await cli("jobs", "ls", "agent", "--state", "failed")).toEqual([expect.objectContaining({ id: "hj1", queue: hostQueue, state: "failed", failedReason: "sandbox gone" })]);
    expect(await cli("runs", "show", "hj1")).toMatchObject({ id: "hj1", repo: "octo/hosted" });
    expect(await cli("jobs", "retry", "hj1")).toMatchObject({ id: "hj1", queue: hostQueue, state: "waiting" });
  });

  it.each([
    [["jobs", "ls", "nope"], /^jobs ls takes a queue: one of agent, review, .* not "nope"$/],
    [["jobs", "ls", "agent", "--state", "gone"], /^--state takes failed, .* not "gone"$/],
    [["runs", "ls", "--repo", "../etc"], /^"\.\.\/etc" is not a repository name/],
    [["runs", "ls", "--status", "maybe"], /^--status takes pr_opened, .* not "maybe"$/],
    [["runs", "show", "nope"], /^no run "nope"/],
    [["jobs", "retry", "nope"], /^no job "nope" in any queue$/],
  ])("%j is refused with the value echoed", async (argv, message) => {
    const { cli } = await setup();
    const err = await cli(...argv).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });
});
