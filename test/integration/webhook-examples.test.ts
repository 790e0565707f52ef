import { createHash } from "node:crypto";
import examples from "@octokit/webhooks-examples";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { QUEUE_NAMES } from "../../src/queue/names.js";
import { deliveryJobId, jobId, reviewJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { sendWebhook } from "../helpers/github-app.js";
import { startTestProcess } from "../helpers/test-process.js";
import { pumpFor } from "../helpers/stream-intake.js";
import { redisUrl, testRedis, uniquePrefix } from "../helpers/redis.js";

const SUBSCRIBED = [
  "issue_comment",
  "issues",
  "pull_request",
  "pull_request_review",
  "pull_request_review_comment",
  "check_run",
  "check_suite",
  "workflow_run",
  "status",
  "installation",
  "installation_repositories",
];

type Payload = Record<string, any>;
const FAILING = ["failure", "timed_out", "startup_failure", "action_required"];
const mentions = (body: unknown) => typeof body === "string" && /(^|\s)@(open-swe|openswe)(?![\w-])/i.test(body);
const isBot = (u: Payload | undefined) => !u || u.type === "Bot" || String(u.login).endsWith("[bot]");

/** An independent statement of the routing table: which queue a delivery should land on, if any. */
function expected(event: string, p: Payload): { queue: string; id: (delivery: string) => string } | null {
  const byDelivery = (queue: string) => ({ queue, id: deliveryJobId });
  if (!p.installation || !p.repository) return null;
  const action = p.action as string | undefined;
  switch (event) {
    case "issue_comment":
      return action === "created" && !isBot(p.sender) && mentions(p.comment.body) ? byDelivery("agent") : null;
    case "pull_request_review":
      if (action !== "submitted" || isBot(p.sender)) return null;
      if (mentions(p.review.body)) return byDelivery("agent");
      return p.review.state === "changes_requested" ? byDelivery("ci-event") : null;
    case "pull_request_review_comment":
      return action === "created" && !isBot(p.sender) && mentions(p.comment.body) ? byDelivery("agent") : null;
    case "issues": {
      if (action === "closed") return byDelivery("cleanup");
      if (isBot(p.sender)) return null;
      // One job per issue and content: `opened` + `labeled` of one new labelled issue are one run.
      const text = `${p.issue.title}\n\n${p.issue.body ?? ""}`.trim();
      const byIssue = { queue: "agent", id: () => jobId("issue", p.issue.id, createHash("sha256").update(text).digest("hex").slice(0, 16)) };
      if (action === "labeled") return p.label?.name === "open-swe" ? byIssue : null;
      if (action === "opened") return (p.issue.labels ?? []).some((l: Payload) => l.name === "open-swe") || mentions(p.issue.body) ? byIssue : null;
      return null;
    }
    case "pull_request": {
      const pr = p.pull_request;
      if (action === "closed") return byDelivery("cleanup");
      if (action === "review_requested") return p.requested_reviewer?.login === "open-swe[bot]" && !isBot(p.sender) ? byDelivery("review") : null;
      if (["opened", "ready_for_review", "reopened"].includes(action ?? "")) {
        const t = threadId({ kind: "reviewer", owner: p.repository.owner.login, repo: p.repository.name, number: pr.number });
        return { queue: "review", id: () => reviewJobId(t, pr.head.sha, action!) };
      }
      return null;
    }
    case "check_run":
      return action === "completed" && FAILING.includes(p.check_run.conclusion) ? byDelivery("ci-event") : null;
    case "check_suite":
      return action === "completed" && FAILING.includes(p.check_suite.conclusion) ? byDelivery("ci-event") : null;
    case "workflow_run":
      return action === "completed" && FAILING.includes(p.workflow_run.conclusion) ? byDelivery("ci-event") : null;
    case "status":
      return ["failure", "error"].includes(p.state) ? byDelivery("ci-event") : null;
    default:
      return null;
  }
}

/** Real payloads, plus each comment-bearing one rewritten to mention the app, so both paths are exercised. */
function cases(): { name: string; event: string; payload: Payload }[] {
  const out: { name: string; event: string; payload: Payload }[] = [];
  for (const group of examples as unknown as { name: string; examples: Payload[] }[]) {
    if (!SUBSCRIBED.includes(group.name)) continue;
    group.examples.forEach((payload, i) => {
      out.push({ name: `${group.name}.${payload.action ?? "-"} #${i}`, event: group.name, payload });
      const mention = structuredClone(payload);
      if (group.name === "issue_comment" && mention.comment) mention.comment.body = "@open-swe please fix the failing test";
      else if (group.name === "pull_request_review_comment" && mention.comment) mention.comment.body = "@openswe, rename this";
      else if (group.name === "pull_request_review" && mention.review) mention.review.body = "@open-swe review --verdict";
      else if (group.name === "issues" && mention.issue) mention.issue.body = "Broken build. @open-swe can you fix?";
      else if (group.name === "pull_request" && payload.action === "review_requested") mention.requested_reviewer = { login: "open-swe[bot]", id: 99, type: "Bot" };
      else return;
      if (mention.sender) mention.sender = { ...mention.sender, type: "User", login: "octo-human" };
      out.push({ name: `${group.name}.${payload.action ?? "-"} #${i} (mentioning)`, event: group.name, payload: mention });
    });
  }
  return out;
}

describe("every subscribed @octokit/webhooks-examples payload, signed, through the real endpoint", () => {
  let proc: RunningProcess;
  let prefix: string;
  let pump: ReturnType<typeof pumpFor>;
  beforeAll(async () => {
    prefix = uniquePrefix();
    proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    pump = pumpFor(proc, prefix);
    const settings = new SettingsStore(testRedis(), prefix);
    for (const group of examples as unknown as { name: string; examples: Payload[] }[]) {
      for (const p of group.examples) if (p.repository?.full_name) await settings.enableRepo(p.repository.full_name);
    }
  });
  afterAll(async () => {
    await pump?.stop();
    await proc?.stop();
  });

  const all = cases();
  const seen = new Set<string>();
  it(`covers ${all.length} deliveries`, () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it.each(all)("$name", async ({ event, payload }) => {
    await pump.drained();
    const before = await countJobs(proc);
    const res = await sendWebhook(proc.port!, { event, payload });
    expect(res.status, res.body).toBe(200);
    const want = expected(event, payload);
    // The job reaches BullMQ through the intake pump (WEBHOOK_INTAKE=stream): counted once the streams are empty.
    await pump.drained();
    const after = await countJobs(proc);
    if (!want) {
      expect(after).toEqual(before);
      return;
    }
    // A mention of "review" on a PR goes to the review queue; the oracle above only knows "a mention".
    const queue = want.queue === "agent" && /review --verdict/.test(payload.review?.body ?? "") ? "review" : want.queue;
    const job = await proc.queues.queues[queue as "agent"].getJob(want.id(res.deliveryId));
    expect(job, `expected a ${queue} job`).toBeTruthy();
    expect(JSON.stringify(job!.data)).not.toMatch(/token|secret/i);
    const added = Object.entries(after).filter(([q, n]) => n !== before[q]);
    // Examples that share a PR and head sha dedupe onto one review job: a second one would be a bug.
    const key = `${queue}/${job!.id}`;
    expect(added).toEqual(seen.has(key) ? [] : [[queue, before[queue]! + 1]]);
    seen.add(key);
  });
});

describe("installation events keep the installed-repos record", () => {
  it("records on created and forgets on deleted / removed", async () => {
    const prefix = uniquePrefix();
    const proc = await startTestProcess("web", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix });
    try {
      const group = (name: string) => (examples as unknown as { name: string; examples: Payload[] }[]).find((g) => g.name === name)!.examples;
      const created = group("installation").find((p) => p.action === "created" && p.repositories?.length)!;
      expect((await sendWebhook(proc.port!, { event: "installation", payload: created })).status).toBe(200);
      const settings = new SettingsStore(testRedis(), prefix);
      const installed = await settings.listInstalled();
      for (const r of created.repositories) expect(installed[r.full_name.toLowerCase()]).toEqual({ installationId: created.installation.id, repoId: r.id });
      const deleted = { ...created, action: "deleted" };
      expect((await sendWebhook(proc.port!, { event: "installation", payload: deleted })).status).toBe(200);
      expect(await settings.listInstalled()).toEqual({});
      const added = group("installation_repositories").find((p) => p.action === "added")!;
      await sendWebhook(proc.port!, { event: "installation_repositories", payload: added });
      expect(Object.keys(await settings.listInstalled()).length).toBe(added.repositories_added.length);
    } finally {
      await proc.stop();
    }
  });
});

async function countJobs(proc: RunningProcess): Promise<Record<string, number>> {
  const entries = await Promise.all(QUEUE_NAMES.filter((q) => q !== "ci-monitor").map(async (q) => [q, await proc.queues.queues[q].count()] as const));
  return Object.fromEntries(entries);
}
