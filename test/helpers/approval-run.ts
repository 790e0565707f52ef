import { writeFileSync } from "node:fs";
import type { BaseMessage } from "@langchain/core/messages";
import nock from "nock";
import { expect } from "vitest";
import { RedisSaver } from "../../src/agent/checkpoint/redis-saver.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import type { E2eApp } from "./e2e-app.js";
import { issueCommentPayload, sendWebhook } from "./github-app.js";
import { waitForJob } from "./jobs.js";
import { testRedis } from "./redis.js";

export const API = "https://api.github.com";
export const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
export const CONFIG = "agent:\n  tools:\n    execute: ask\n";

const script = (reply: string) => [
  { tool_calls: [{ name: "execute", args: { command: `GH_TOKEN=${SECRET} sh -c 'echo approved > proof.txt' && cat proof.txt` } }] },
  { tool_calls: [{ name: "github_comment", args: { body: reply } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
];

/** The nocks of one agent run's start on issue `number` of octo/hello; the config asks before `execute`. */
export function runStartMocks(commentId: number, o: { reaction?: boolean } = {}) {
  nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, CONFIG);
  nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
  if (o.reaction !== false) nock(API).post(`/repos/octo/hello/issues/comments/${commentId}/reactions`).reply(201, {});
}

export async function toolMessages(prefix: string, thread: string, name: string): Promise<string[]> {
  const saver = new RedisSaver({ redis: testRedis(), prefix: `${prefix}:ckpt` });
  const messages = ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
  return messages.filter((m) => m.getType() === "tool" && m.name === name).map((m) => String(m.content));
}

/** The text of every human message in the thread's last checkpoint, oldest first. */
export async function humanMessages(prefix: string, thread: string): Promise<string[]> {
  const saver = new RedisSaver({ redis: testRedis(), prefix: `${prefix}:ckpt` });
  const messages = ((await saver.getTuple({ configurable: { thread_id: thread } }))?.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
  return messages.filter((m) => m.getType() === "human").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** Starts a run that pauses on `execute`; returns the approval id read from the request comment. */
export async function pausedRun(app: E2eApp, o: { installationId: number; number: number; issueId: number; commentId: number; reply: string; requestCommentId: number }) {
  writeFileSync(app.replay, JSON.stringify(script(o.reply)));
  runStartMocks(o.commentId);
  let request = "";
  const posted = nock(API)
    .post(`/repos/octo/hello/issues/${o.number}/comments`, (b) => /Approval needed/.test(b.body))
    .reply(201, (_uri, body) => ((request = (body as { body: string }).body), { id: o.requestCommentId }));
  const res = await sendWebhook(app.proc.port!, {
    event: "issue_comment",
    payload: issueCommentPayload({ installationId: o.installationId, number: o.number, issueId: o.issueId, commentId: o.commentId, body: "@open-swe write the proof file" }),
  });
  const paused = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
  expect(paused.failedReason).toBeUndefined();
  expect(paused.returnvalue).toMatchObject({ outcome: "awaiting_approval" });
  expect(posted.isDone()).toBe(true);
  const id = (paused.returnvalue as { approvalId: string }).approvalId;
  expect(id).toMatch(/^[0-9a-f]{8}$/);
  return { id, request, thread: threadId({ kind: "issue", issueId: o.issueId }) };
}
