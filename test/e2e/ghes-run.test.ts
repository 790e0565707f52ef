import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { issueCommentPayload, sendWebhook } from "../helpers/github-app.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { vendorTally } from "../contracts/nock-contract.js";

// A GitHub Enterprise Server installation: every API call goes to https://<GHE_HOST>/api/v3, and each
// mocked exchange is held to the GHES description (test/contracts/README.md, vendor `github-ghes`).
const GHE_HOST = "ghe.acme.example";
const API = `https://${GHE_HOST}/api/v3`;
const PR_URL = `https://${GHE_HOST}/octo/hello/pull/12`;

const script = [
  { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/CONTRIBUTING.md", content: "# Contributing\n\nRun `npm test` first.\n" } }] },
  { tool_calls: [{ name: "commit_and_push", args: { message: "Add CONTRIBUTING.md" } }] },
  { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add CONTRIBUTING.md", body: "Adds a short contributor guide." } }] },
  { tool_calls: [{ name: "github_comment", args: { body: `Added a contributor guide: ${PR_URL}` } }] },
  { tool_calls: [{ name: "confirming_completion", args: { summary: "Added CONTRIBUTING.md" } }] },
];

describe("e2e: on GitHub Enterprise Server (GHE_HOST), a comment becomes a PR and a reply on the GHES API", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "ghes", { GHE_HOST });
  });
  afterAll(async () => app?.stop());

  it("@open-swe add a CONTRIBUTING.md", async () => {
    const { proc, replay } = app;
    writeFileSync(replay, JSON.stringify(script));
    // No exchange may reach api.github.com: only the GHES host is mocked (network is disabled otherwise).
    nock(API)
      .post("/app/installations/4242/access_tokens")
      .times(2)
      .reply(201, { token: "ghs_test_installation_token", expires_at: new Date(Date.now() + 3600_000).toISOString() });
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, { message: "Not Found" });
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main", full_name: "octo/hello" });
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const pr = nock(API)
      .post("/repos/octo/hello/pulls", (b) => b.title === "Add CONTRIBUTING.md" && b.base === "main")
      .reply(201, { number: 12, html_url: PR_URL });
    const ack = nock(API).post("/repos/octo/hello/issues/comments/901/reactions", { content: "eyes" }).reply(201, {});
    const reply = nock(API)
      .post("/repos/octo/hello/issues/8/comments", { body: `Added a contributor guide: ${PR_URL}` })
      .reply(201, { id: 555 });
    const summary = nock(API).patch("/repos/octo/hello/issues/comments/555").reply(200, { id: 555 });

    const res = await sendWebhook(proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: 4242, number: 8, issueId: 8008, commentId: 901, body: "@open-swe add a CONTRIBUTING.md" }),
    });
    expect(res.status).toBe(200);
    const done = await waitForJob(proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    // A PR on the GHES host is a PR: the outcome says so (src/agent/run-record.ts reads any web host's PR URL).
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    expect(pr.isDone() && reply.isDone() && summary.isDone() && ack.isDone()).toBe(true);
    expect(remote.git("branch", "--list", "open-swe/*")).toMatch(/open-swe\/[0-9a-f]{8}-add-a-contributing-md/);
    // Every GitHub exchange of the run was held to the GHES description, none to api.github.com's.
    expect(vendorTally("github-ghes")).toMatchObject({ validated: 11, noContract: 0 });
    expect(vendorTally("github").validated).toBe(0);
  });
});
