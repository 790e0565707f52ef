import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AutofixLedger } from "../../src/autofix/autofix-ledger.js";
import type { RunningProcess } from "../../src/main.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob, findJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { API, ciFacts, head, nextInstallation, pull, recordOurPr, startAutofixProcess } from "./ci-autofix-fixture.js";

// `@open-swe fix ci` from a writer and a bare `@open-swe autofix`: the command job's side of CI autofix.
describe("CI autofix commands on a PR", () => {
  let proc: RunningProcess;
  let prefix: string;
  beforeAll(async () => {
    ({ proc, prefix } = await startAutofixProcess());
  });
  afterAll(async () => proc?.stop());
  const ourPr = (number: number) => recordOurPr(prefix, number);

  describe("`@open-swe fix ci` from a writer", () => {
    function fixCi(number: number, login: string, body = "@open-swe fix ci") {
      const installation = nextInstallation();
      return {
        installationId: installation,
        payload: {
          action: "created",
          installation: { id: installation },
          repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
          sender: { login, id: 21, type: "User" },
          issue: { number, id: 5000 + number, user: { login: "bob" }, pull_request: { url: "x" } },
          comment: { id: 950 + number, body, user: { login, id: 21, type: "User" } },
        },
      };
    }
    const writer = (login: string) => nock(API).get(`/repos/octo/hello/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write", user: { login } });

    it("on someone else's PR: a fix run on that PR's thread, for the writer, answering the comment, despite a person's commit and nobody opting in", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(20, "wendy");
      mockInstallationToken(installationId);
      writer("wendy");
      pull(20, sha, "bob");
      ciFacts(sha, { commitAuthor: "bob" });
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      const done = await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId));
      expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "fix_ci_dispatch", reason: "dispatched", attempt: 1 } });
      const job = await findJob(proc.queues.queues.agent, (done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({
        threadId: threadId({ kind: "pr", owner: "octo", repo: "hello", number: 20 }),
        trigger: "ci_fix",
        requester: { login: "wendy", id: 21 },
        comment: { kind: "issue_comment", id: 970 },
      });
      expect(job?.data.text).toContain("error no-unused-vars");
      expect(job?.data.allowTestConfig).toBeUndefined();
    });

    it("`fix ci --allow-test-config`: the fix run's job carries the typed allowance", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(57, "wren", "@open-swe fix ci --allow-test-config");
      mockInstallationToken(installationId);
      writer("wren");
      pull(57, sha, "bob");
      ciFacts(sha, { commitAuthor: "bob" });
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      const done = await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId));
      expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "fix_ci_dispatch" } });
      const job = await findJob(proc.queues.queues.agent, (done.returnvalue as { agentJob: string }).agentJob);
      expect(job?.data).toMatchObject({ trigger: "ci_fix", allowTestConfig: true });
    });

    it("with an invalid .github/open-swe.yml: one reply naming the problem, no run", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(58, "wade");
      mockInstallationToken(installationId);
      writer("wade");
      pull(58, sha, "bob");
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, "autofix:\n  max_attempts: lots\n");
      const reply = nock(API)
        .post("/repos/octo/hello/issues/58/comments", (b: { body: string }) => /^I could not use `\.github\/open-swe\.yml`, so no fix run started: .*max_attempts/s.test(b.body))
        .reply(201, { id: 10 });
      const agentJobs = await proc.queues.queues.agent.count();
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "completed", returnvalue: { outcome: "fix_ci_config_invalid" } });
      expect(reply.isDone()).toBe(true);
      expect(await proc.queues.queues.agent.count()).toBe(agentJobs);
    });

    it("GitHub failing on the last attempt: one reply saying it is GitHub's trouble, the job failed with the cause", async () => {
      const { payload, installationId } = fixCi(59, "wyn");
      mockInstallationToken(installationId);
      writer("wyn");
      nock(API).get("/repos/octo/hello/pulls/59").reply(502, { message: "Server Error" });
      const reply = nock(API)
        .post("/repos/octo/hello/issues/59/comments", (b: { body: string }) => /^I could not start the fix run: GitHub kept failing \(HTTP 502\), an upstream error, not your request/.test(b.body))
        .reply(201, { id: 11 });
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ state: "failed", failedReason: expect.stringMatching(/Server Error|502/) });
      expect(reply.isDone()).toBe(true);
    });

    it("with nothing failing: one reply saying so, no run", async () => {
      const sha = head();
      const { payload, installationId } = fixCi(21, "wanda");
      mockInstallationToken(installationId);
      writer("wanda");
      pull(21, sha, "bob");
      nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
      nock(API)
        .get(`/repos/octo/hello/commits/${sha}/check-runs`)
        .query(true)
        .reply(200, { total_count: 1, check_runs: [{ id: 60, name: "lint", status: "completed", conclusion: "success", app: { slug: "github-actions" } }] });
      nock(API).get(`/repos/octo/hello/commits/${sha}/status`).query(true).reply(200, { state: "success", statuses: [] });
      nock(API).get(`/repos/octo/hello/commits/${sha}`).reply(200, { sha, author: null });
      const reply = nock(API)
        .post("/repos/octo/hello/issues/21/comments", (b: { body: string }) => /^No check is failing/.test(b.body))
        .reply(201, { id: 9 });
      const agentJobs = await proc.queues.queues.agent.count();
      const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
      expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "fix_ci_skip", reason: "no_failing_checks" } });
      expect(reply.isDone()).toBe(true);
      expect(await proc.queues.queues.agent.count()).toBe(agentJobs);
    });
  });

  it("a bare `@open-swe autofix` on our PR says its state, why, and the attempts used", async () => {
    await ourPr(24);
    await new AutofixLedger(testRedis(), prefix).claim("octo/hello#24", { fingerprint: "f", headSha: "h", maxAttempts: 3, ci: true, counts: true });
    const installation = nextInstallation();
    mockInstallationToken(installation);
    nock(API)
      .get("/repos/octo/hello/collaborators/olga/permission")
      .reply(200, { permission: "write", role_name: "write", user: { login: "olga" } });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    const reply = nock(API)
      .post("/repos/octo/hello/issues/24/comments", (b: { body: string }) => /^CI autofix is \*\*on\*\* for this pull request: @alice's profile turns it on .* 1 of 3 fix runs/.test(b.body))
      .reply(201, { id: 12 });
    const payload = {
      action: "created",
      installation: { id: installation },
      repository: { name: "hello", full_name: "octo/hello", owner: { login: "octo" } },
      sender: { login: "olga", id: 41, type: "User" },
      issue: { number: 24, id: 5024, pull_request: { url: "x" } },
      comment: { id: 990, body: "@open-swe autofix", user: { login: "olga", id: 41, type: "User" } },
    };
    const res = await sendWebhook(proc.port!, { event: "issue_comment", payload });
    expect(await waitForJob(proc.queues.queues.command, deliveryJobId(res.deliveryId))).toMatchObject({ returnvalue: { outcome: "autofix_status", attempts: 1, maxAttempts: 3 } });
    expect(reply.isDone()).toBe(true);
  });
});
