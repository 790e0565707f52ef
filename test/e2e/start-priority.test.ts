import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ReplayChatModel } from "../../src/agent/model/replay-chat-model.js";
import { runSetupSeconds, runYieldSeconds } from "../../src/observability/metrics.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";

const API = "https://api.github.com";

describe("e2e: a run that starts goes first — the runs under way on the worker wait for its first model call", () => {
  let app: E2eApp;
  beforeAll(async () => {
    const remote = makeBareRemote("octo", "hello");
    // Held until the starting run's first model call (the 1.5 s set-up below), not released by the cap first.
    app = await startE2eApp(remote.template, "start-priority", { START_PRIORITY_MS: "5000" });
  });
  afterAll(async () => app?.stop());

  it("while run B is being set up, run A makes no model call; both finish", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        ...Array.from({ length: 30 }, (_, i) => ({ tool_calls: [{ name: "execute", args: { command: `echo step ${i}` } }], delay_ms: 40 })),
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    const calls: Array<{ run: "A" | "B"; at: number }> = [];
    const generate = ReplayChatModel.prototype._generate;
    const spy = vi.spyOn(ReplayChatModel.prototype, "_generate").mockImplementation(function (this: ReplayChatModel, messages: BaseMessage[], ...rest) {
      calls.push({ run: messages.some((m) => JSON.stringify(m.content).includes("task B")) ? "B" : "A", at: performance.now() });
      return generate.call(this, messages, ...rest);
    });
    const api = nock(API).persist();
    api.post("/app/installations/6161/access_tokens").reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    api.get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    api.get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    api.get("/repos/octo/hello").reply(200, { default_branch: "main" });
    api.post(/^\/repos\/octo\/hello\/issues\/comments\/7[12]\/reactions$/).reply(201, {});
    api.post(/^\/repos\/octo\/hello\/issues\/[34]\/comments$/).reply(201, { id: 81 });
    // B's set-up is slow (its repository config takes 1.5 s): that is the window A must leave to B.
    let bAskedAt: number | undefined;
    api.get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(async () => {
      if (calls.length > 0) {
        bAskedAt = performance.now();
        await sleep(1500);
      }
      return [404, {}];
    });

    const yielded = async () => (await runYieldSeconds.get()).values[0]?.value ?? 0;
    const yieldedBefore = await yielded();
    const claims = async () => (await runSetupSeconds.get()).values.find((v) => v.metricName?.endsWith("_count") && v.labels["phase"] === "claim")?.value ?? 0;
    const claimsBefore = await claims();
    const a = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 6161, number: 3, issueId: 3003, commentId: 71, body: "@open-swe task A" }),
    });
    await vi.waitFor(() => expect(calls.length).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 10 });
    const b = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 6161, number: 4, issueId: 4004, commentId: 72, body: "@open-swe task B" }),
    });
    const [doneA, doneB] = await Promise.all([
      waitForJob(app.proc.queues.queues.agent, deliveryJobId(a.deliveryId), 60_000),
      waitForJob(app.proc.queues.queues.agent, deliveryJobId(b.deliveryId), 60_000),
    ]);
    spy.mockRestore();
    expect(doneA.failedReason).toBeUndefined();
    expect(doneB.failedReason).toBeUndefined();

    const firstB = calls.find((c) => c.run === "B")!.at;
    expect(bAskedAt).toBeDefined();
    expect(firstB - bAskedAt!).toBeGreaterThanOrEqual(1400);
    const aDuringB = calls.filter((c) => c.run === "A" && c.at > bAskedAt! && c.at < firstB);
    expect(aDuringB).toEqual([]);
    // The wait is counted (open_swe_run_yield_seconds_total): A waited out most of B's set-up.
    expect((await yielded()) - yieldedBefore).toBeGreaterThan(1);
    // Each run's set-up is timed from its pickup: the claim phase (authorization, the thread's lock) is one lap per run.
    expect((await claims()) - claimsBefore).toBe(2);
    // A was under way before and went on after: it waited, it was not done or stuck.
    expect(calls.filter((c) => c.run === "A" && c.at < bAskedAt!).length).toBeGreaterThanOrEqual(3);
    const aAfterB = calls.filter((c) => c.run === "A" && c.at > firstB);
    expect(aAfterB.length).toBeGreaterThan(5);
    // Released by B's first model call, not by the cap or B's end.
    expect(aAfterB[0]!.at - firstB).toBeLessThan(1000);
    expect(calls.filter((c) => c.run === "A")).toHaveLength(31);
  });
});
