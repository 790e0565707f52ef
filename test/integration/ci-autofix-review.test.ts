import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { API, THREAD, head, nextInstallation, pull, recordOurPr, startAutofixProcess } from "./ci-autofix-fixture.js";

// Review feedback on our PR: which submitted reviews become a fix run on the thread that opened it.
describe("CI autofix: review feedback on our PR", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess({ PERMISSION_CHECK_BUDGET_SECONDS: "1" }));
  });
  afterAll(async () => proc?.stop());
  const ourPr = (number: number) => recordOurPr(prefix, number);

  describe("a `changes requested` review on our PR", () => {
    function reviewEvent(number: number, headSha: string, reviewer: string, review: { state: string; body: string } = { state: "changes_requested", body: "Please rename foo." }) {
      const installation = nextInstallation();
      return {
        installationId: installation,
        payload: {
          action: "submitted",
          installation: { id: installation },
          repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
          sender: { login: reviewer, id: 31, type: "User" },
          review: { id: 4400 + number, ...review, user: { login: reviewer, id: 31 }, html_url: `https://github.com/octo/hello/pull/${number}#r1` },
          pull_request: { number, head: { sha: headSha, ref: `open-swe/${number}` } },
        },
      };
    }
    async function deliverReview(number: number, sha: string, reviewer: string, permission: string, review?: { state: string; body: string }) {
      const { payload, installationId } = reviewEvent(number, sha, reviewer, review);
      mockInstallationToken(installationId);
      pull(number, sha);
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}`)
        .reply(200, { sha, author: { login: "open-swe[bot]" } });
      nock(API)
        .get(`/repos/octo/hello/collaborators/${reviewer}/permission`)
        .reply(200, { permission, role_name: permission, user: { login: reviewer } });
      const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
      return waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId));
    }

    it("from a writer: a fix run on the thread with the review's words and line comments", async () => {
      await ourPr(22);
      const sha = head();
      nock(API)
        .get("/repos/octo/hello/pulls/22/reviews/4422")
        .reply(200, { id: 4422, body: "Please rename foo.", user: { login: "rita" }, html_url: "https://github.com/octo/hello/pull/22#r1" });
      nock(API)
        .get("/repos/octo/hello/pulls/22/reviews/4422/comments")
        .query(true)
        .reply(200, [{ path: "src/a.ts", line: 3, body: "foo → bar" }]);
      const done = await deliverReview(22, sha, "rita", "write");
      expect(done).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched", fingerprint: "review:4422" } });
      const job = await findJob(proc.queues.queues.agent, (done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({ threadId: THREAD, trigger: "ci_fix", number: 22 });
      expect(job?.data.text).toContain("Please rename foo.");
      expect(job?.data.text).toContain("- src/a.ts:3: foo → bar");
    });

    it("a comment review whose body asks for a change, from a writer: a fix run too", async () => {
      await ourPr(24);
      const sha = head();
      nock(API)
        .get("/repos/octo/hello/pulls/24/reviews/4424")
        .reply(200, { id: 4424, body: "Could you handle the empty list here?", user: { login: "vera" }, html_url: "https://github.com/octo/hello/pull/24#r1" });
      nock(API)
        .get("/repos/octo/hello/pulls/24/reviews/4424/comments")
        .query(true)
        .reply(200, [{ path: "src/a.ts", line: 9, body: "empty list → crash" }]);
      const done = await deliverReview(24, sha, "vera", "write", { state: "commented", body: "Could you handle the empty list here?" });
      expect(done).toMatchObject({ returnvalue: { outcome: "dispatch", reason: "dispatched", fingerprint: "review:4424" } });
      const job = await findJob(proc.queues.queues.agent, (done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data.text).toMatch(/asked for changes[\s\S]*Could you handle the empty list here\?[\s\S]*- src\/a\.ts:9: empty list → crash/);
    });

    it("a comment review asking for a change from a non-writer, or GitHub not answering the permission check: ignored", async () => {
      await ourPr(25);
      expect(await deliverReview(25, head(), "nora", "read", { state: "commented", body: "Please rename foo." })).toMatchObject({
        returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" },
      });
      await ourPr(26);
      const sha = head();
      const { payload, installationId } = reviewEvent(26, sha, "gus", { state: "commented", body: "Please rename foo." });
      mockInstallationToken(installationId);
      pull(26, sha);
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}`)
        .reply(200, { sha, author: { login: "open-swe[bot]" } });
      nock(API).get("/repos/octo/hello/collaborators/gus/permission").times(3).reply(502, { message: "Bad Gateway" });
      const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
      expect(await waitForJob(proc.queues.queues["ci-event"], deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" } });
      nock.cleanAll();
    });

    it("praise, an empty body, or a mention of the app is no review feedback: no ci-event job", async () => {
      for (const review of [
        { state: "approved", body: "LGTM, thanks!" },
        { state: "commented", body: "" },
        { state: "commented", body: "@open-swe fix ci" },
      ]) {
        const { payload, installationId } = reviewEvent(27, head(), "rita", review);
        mockInstallationToken(installationId);
        const res = await sendWebhook(proc.port!, { event: "pull_request_review", payload });
        expect(res.status).toBe(200);
        expect(await proc.queues.queues["ci-event"].getJob(deliveryJobId(res.deliveryId))).toBeUndefined();
        nock.cleanAll();
      }
    });

    it("from someone without write access: ignored (reviewer_no_write_permission)", async () => {
      await ourPr(23);
      expect(await deliverReview(23, head(), "randy", "read")).toMatchObject({ returnvalue: { outcome: "skip", reason: "reviewer_no_write_permission" } });
    });
  });
});
