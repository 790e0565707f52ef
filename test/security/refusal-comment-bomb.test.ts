import { readFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { ROOT } from "../helpers/paths.js";
import { redisUrl, uniquePrefix } from "../helpers/redis.js";
import { startTestProcess } from "../helpers/test-process.js";

// Finding (#42, 5): one review by a non-writer with 40 inline `@open-swe` comments got 40 refusal
// replies, and made 40 "starting" runs (start priority began before the write-access check): every run
// under way on the worker slowed to about a third of its model-call rate. Now rights are checked before a
// run counts as starting, and a person is refused once per issue or PR within the hour.

const API = "https://api.github.com";
const COMMENTS = 40;
const INSTALLATION = 4242;

/** GitHub's own example of a review comment (what the reply endpoint answers), from the OpenAPI description. */
const reviewCommentExample = () =>
  JSON.parse(readFileSync(join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json"), "utf8")).components.examples["pull-request-review-comment"].value as Record<string, unknown>;

const mallory = { login: "mallory", id: 666, type: "User" };
const reviewComment = (i: number) => ({
  action: "created",
  installation: { id: INSTALLATION },
  repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
  sender: mallory,
  pull_request: { number: 21, id: 5021, body: "", user: { login: "dana", id: 31 }, head: { ref: "feature" } },
  comment: { id: 7000 + i, pull_request_review_id: 90, body: `@open-swe rewrite line ${i}`, user: mallory },
});

describe("security: a non-writer's comment bomb", () => {
  let proc: RunningProcess;
  const starts = async () => Number(/^open_swe_run_starts_total (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${proc.port}/metrics`)).text())?.[1]);
  beforeAll(async () => {
    proc = await startTestProcess("all", { QUEUE_REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix(), JOB_ATTEMPTS: "1", WORKER_CONCURRENCY: "8" });
  });
  afterAll(async () => proc?.stop());

  it(`${COMMENTS} inline mentions in one review: at most one refusal reply, and no run counts as starting`, async () => {
    mockInstallationToken(INSTALLATION, COMMENTS).persist();
    nock(API)
      .get("/repos/octo/hello/collaborators/mallory/permission")
      .reply(200, { permission: "read", role_name: "read", user: { login: "mallory" } })
      .persist();
    let replies = 0;
    nock(API)
      .post(/^\/repos\/octo\/hello\/pulls\/21\/comments\/\d+\/replies$/, (b) => /Only people with write access/.test(b.body) && b.body.includes("@mallory"))
      .reply(() => {
        replies += 1;
        return [201, reviewCommentExample()];
      })
      .persist();
    const before = await starts();
    const sent = await Promise.all(Array.from({ length: COMMENTS }, (_, i) => sendWebhook(proc.port!, { event: "pull_request_review_comment", payload: reviewComment(i) })));
    for (const s of sent) expect(s.status).toBe(200);
    const done = await Promise.all(sent.map((s) => waitForJob(proc.queues.queues.agent, deliveryJobId(s.deliveryId), 60_000)));
    for (const d of done) expect(d).toMatchObject({ state: "completed", returnvalue: { outcome: "refused" } });
    expect(replies).toBe(1);
    expect((await starts()) - before).toBe(0);
  }, 120_000);
});
