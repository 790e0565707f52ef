import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testSigner } from "../helpers/job-signer.js";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { PrThreads } from "../../src/store/pr-threads.js";
import { threadId } from "../../src/shared/thread-id.js";
import { issueCommentPayload, sendWebhook } from "../helpers/github-app.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";
import { pumpFor } from "../helpers/stream-intake.js";
import { findJob, jobsEverywhere } from "../helpers/jobs.js";
import { hostAliveKey, hostQueueName, hostsKey, sandboxHostKey, threadSandboxKey } from "../../src/queue/host-routes.js";

const ORIGIN = threadId({ kind: "issue", issueId: 8008 });
const repo = { name: "hello", full_name: "octo/hello", owner: { login: "octo" } };
const human = { login: "dana", id: 31, type: "User" };

describe("webhook routing onto threads and jobs (real web process, real Redis)", () => {
  let proc: RunningProcess;
  let prefix: string;
  let pump: ReturnType<typeof pumpFor>;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    pump = pumpFor(proc, prefix);
  });
  afterAll(async () => {
    await pump?.stop();
    await proc?.stop();
  });

  // The web tier routes nothing itself (WEBHOOK_INTAKE=stream): the pump's move is where a job gets its thread and host.
  const agentJob = async (deliveryId: string) => {
    await pump.drained();
    return (await findJob(proc.queues.queues.agent, deliveryJobId(deliveryId)))?.data;
  };

  it("a comment on a PR the agent opened joins the thread that opened it (recorded when the PR was opened)", async () => {
    await new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 12, branch: "open-swe/abcd1234-x" }, ORIGIN);
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 12, issueId: 1012, commentId: 5, body: "@open-swe also fix the typo", pullRequest: true }),
    });
    expect(await agentJob(res.deliveryId)).toMatchObject({ threadId: ORIGIN, number: 12, isPullRequest: true, text: "also fix the typo" });
  });

  it("…and goes to the host where that thread's local sandbox lives (origin and route read in one round trip)", async () => {
    const origin = threadId({ kind: "issue", issueId: 8009 });
    await new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 14, branch: "open-swe/beef0000-z" }, origin);
    await testRedis().set(threadSandboxKey(prefix, origin), "sb-origin14");
    await testRedis().set(sandboxHostKey(prefix, "sb-origin14"), "h-origin014");
    await testRedis().sadd(hostsKey(prefix), "h-origin014");
    await testRedis().set(hostAliveKey(prefix, "h-origin014"), "1", "PX", 60_000);
    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 14, issueId: 1014, commentId: 7, body: "@open-swe one more thing", pullRequest: true }),
    });
    await pump.drained();
    const job = await findJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId));
    expect(job?.queueName).toBe(hostQueueName("agent", "h-origin014"));
    expect(job?.data).toMatchObject({ threadId: origin, number: 14, provenance: { via: "github-webhook", principal: { login: "dana" } } });
    expect(proc.queues.signer.verify("agent", job!.id!, job!.data, Date.now())).toMatchObject({ ok: true });
  });

  it("a review comment on our branch joins the thread by branch name; by the body's marker only if our app wrote the PR", async () => {
    await new PrThreads(testRedis(), prefix, testSigner()).record({ owner: "octo", repo: "hello", number: 13, branch: "open-swe/feed0000-y" }, ORIGIN);
    const reviewComment = (number: number, head: string, body: string, author: string) => ({
      action: "created",
      installation: { id: 1 },
      repository: repo,
      sender: human,
      pull_request: { number, id: 5000 + number, body, user: { login: author, id: 7 }, head: { ref: head, repo } },
      comment: { id: 77 + number, body: "@open-swe rename this", user: human },
    });
    // Number 40 was never recorded, but its branch was (a PR re-opened from our branch).
    const byBranch = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reviewComment(40, "open-swe/feed0000-y", "", "open-swe[bot]") });
    expect(await agentJob(byBranch.deliveryId)).toMatchObject({ threadId: ORIGIN, number: 40 });

    const other = threadId({ kind: "issue", issueId: 4242 });
    const marker = `Fixes it.\n\n<!-- open-swe:thread=${other} -->`;
    const ours = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reviewComment(41, "feature", marker, "open-swe[bot]") });
    expect(await agentJob(ours.deliveryId)).toMatchObject({ threadId: other });
    // Anyone can paste a marker into their own PR: it does not pull the PR into someone's conversation.
    const forged = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reviewComment(42, "feature", marker, "mallory") });
    expect(await agentJob(forged.deliveryId)).toMatchObject({ threadId: threadId({ kind: "pr", owner: "octo", repo: "hello", number: 42 }) });
    // An issue comment carries the PR's body and author too.
    const issueComment = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 43, issueId: 1043, commentId: 6, body: "@open-swe go on", pullRequest: true, issueBody: marker, issueAuthor: "open-swe[bot]" }),
    });
    expect(await agentJob(issueComment.deliveryId)).toMatchObject({ threadId: other });
  });

  it("a reply dismissing a review finding with the handle in front is left to the reviewer, not run as a task", async () => {
    const reply = (commentId: number, body: string) => ({
      action: "created",
      installation: { id: 1 },
      repository: repo,
      sender: human,
      pull_request: { number: 44, id: 5044, body: "", user: human, head: { ref: "feature" } },
      comment: { id: commentId, body, user: human, in_reply_to_id: 900 },
    });
    const dismissal = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reply(9001, "@open-swe won't fix: the cache is cleared on purpose") });
    expect(await agentJob(dismissal.deliveryId)).toBeUndefined();
    // Any other request on the thread is still a task.
    const request = await sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reply(9002, "@open-swe fix it then") });
    expect(await agentJob(request.deliveryId)).toMatchObject({ number: 44, text: "fix it then" });
  });

  it("an issue opened with the trigger label (opened + labeled) is one job; an edited issue labelled again is another", async () => {
    const issue = { number: 77, id: 7077, title: "Broken build", body: "CI fails on main. --verdict", labels: [{ name: "open-swe" }], user: human };
    await pump.drained();
    const before = await proc.queues.queues.agent.count();
    await sendWebhook(proc.port!, { event: "issues", payload: { action: "opened", installation: { id: 1 }, repository: repo, sender: human, issue } });
    await sendWebhook(proc.port!, { event: "issues", payload: { action: "labeled", label: { name: "open-swe" }, installation: { id: 1 }, repository: repo, sender: human, issue } });
    await pump.drained();
    expect(await proc.queues.queues.agent.count()).toBe(before + 1);
    const [job] = (await jobsEverywhere(proc.queues.queues.agent, ["waiting"])).filter((j) => j.data.number === 77);
    // Text in an issue body grants nothing.
    expect(job?.data).toMatchObject({ trigger: "issue_opened", verdictAuthorized: false });
    await sendWebhook(proc.port!, {
      event: "issues",
      payload: { action: "labeled", label: { name: "open-swe" }, installation: { id: 1 }, repository: repo, sender: human, issue: { ...issue, body: "CI fails on main and on release." } },
    });
    await pump.drained();
    expect(await proc.queues.queues.agent.count()).toBe(before + 2);
  });

  it("only a mention with --verdict grants a verdict, as a typed job field", async () => {
    const asked = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 1, number: 9, issueId: 1009, commentId: 7, body: "@open-swe --verdict fix it and get it reviewed" }),
    });
    expect(await agentJob(asked.deliveryId)).toMatchObject({ verdictAuthorized: true, text: "fix it and get it reviewed" });
    const plain = await sendWebhook(proc.port!, { event: "issue_comment", payload: issueCommentPayload({ installationId: 1, number: 9, issueId: 1009, commentId: 8, body: "@open-swe fix it" }) });
    expect(await agentJob(plain.deliveryId)).toMatchObject({ verdictAuthorized: false });
  });
});
