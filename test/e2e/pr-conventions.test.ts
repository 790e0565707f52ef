import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import { toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";

const API = "https://api.github.com";
const INSTALLATION = 5353;
const PR_URL = "https://github.com/octo/hello/pull/31";
const CONVENTIONS = 'pr:\n  title_template: "feat: {title} ({issue})"\n  body_sections: [Summary, Tests]\nfooter: all\n';
const GOOD_BODY = "## Summary\nAdds the guide.\n\n## Tests\nNone needed.";

/** `.github/open-swe.yml` `pr` and `footer`: the team's PR title and sections, and where the cost line goes. */
describe("e2e: a team's PR conventions and footer setting", () => {
  let app: E2eApp;
  let first = true;

  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "pr-conventions");
    await app.proc.queues.queues.review.pause();
  });
  afterAll(async () => app?.stop());

  const start = async (o: { number: number; issueId: number; commentId: number; config: string; script: unknown[] }) => {
    writeFileSync(app.replay, JSON.stringify(o.script));
    if (first) {
      mockInstallationToken(INSTALLATION, 2);
      nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
      first = false;
    }
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, o.config);
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post(`/repos/octo/hello/issues/comments/${o.commentId}/reactions`).reply(201, {});
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION, number: o.number, issueId: o.issueId, commentId: o.commentId, body: "@open-swe add a guide" }),
    });
    return waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
  };

  it("title from the template, a description without the sections refused until it has them, the cost line on the reply and the PR", async () => {
    nock(API).get("/repos/octo/hello/pulls").query(true).reply(200, []);
    const opened = nock(API)
      .post("/repos/octo/hello/pulls", (b: { title: string; body: string }) => b.title === "feat: Add a guide (#21)" && b.body.startsWith(GOOD_BODY))
      .reply(201, { number: 31, html_url: PR_URL });
    nock(API).post("/repos/octo/hello/issues/21/comments").reply(201, { id: 801 });
    const edited = nock(API)
      .patch("/repos/octo/hello/issues/comments/801", (b: { body: string }) => /^Opened [^\n]*\n\n_This run was replayed[^\n]*\n\n<sub>Open SWE · /.test(b.body))
      .reply(200, { id: 801 });
    nock(API)
      .get("/repos/octo/hello/pulls/31")
      .reply(200, { number: 31, body: `${GOOD_BODY}\n\n<!-- open-swe:thread=x -->` });
    const footed = nock(API)
      .patch("/repos/octo/hello/pulls/31", (b: { body: string }) => b.body.startsWith(`${GOOD_BODY}\n\n<!-- open-swe:thread=x -->\n\n<!-- open-swe:footer -->\n<sub>Open SWE · `))
      .reply(200, { number: 31, html_url: PR_URL });
    const done = await start({
      number: 21,
      issueId: 9021,
      commentId: 800,
      config: CONVENTIONS,
      script: [
        { tool_calls: [{ name: "write_file", args: { file_path: "/workspace/GUIDE.md", content: "# Guide\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: "Add a guide" } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add a guide", body: "Adds the guide." } }] },
        { tool_calls: [{ name: "open_or_update_pull_request", args: { title: "Add a guide", body: GOOD_BODY } }] },
        { tool_calls: [{ name: "github_comment", args: { body: `Opened ${PR_URL}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ],
    });
    expect(done.failedReason).toBeUndefined();
    expect(done).toMatchObject({ state: "completed", returnvalue: { outcome: "pr_opened", prUrl: PR_URL } });
    expect(await toolMessages(app.prefix, threadId({ kind: "issue", issueId: 9021 }), "open_or_update_pull_request")).toEqual([
      "Not opened: this repository's .github/open-swe.yml asks for a description with the sections ## Summary, ## Tests, in this order. Missing: ## Summary, ## Tests. Call again with the body rewritten.",
      `Opened pull request #31: ${PR_URL}`,
    ]);
    for (const scope of [opened, edited, footed]) expect(scope.isDone()).toBe(true);
  });

  it("footer: off — the reply carries no cost line (the replay note, which every replayed run has, stays)", async () => {
    const posted = nock(API)
      .post("/repos/octo/hello/issues/22/comments", (b: { body: string }) => b.body === "Nothing to change: the guide exists.")
      .reply(201, { id: 811 });
    const noted = nock(API)
      .patch("/repos/octo/hello/issues/comments/811", (b: { body: string }) => b.body === "Nothing to change: the guide exists.\n\n_This run was replayed from a recording; no model was called._")
      .reply(200, { id: 811 });
    const done = await start({
      number: 22,
      issueId: 9022,
      commentId: 810,
      config: 'footer: "off"\n',
      script: [{ tool_calls: [{ name: "github_comment", args: { body: "Nothing to change: the guide exists." } }] }, { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] }],
    });
    expect(done.failedReason).toBeUndefined();
    expect(done.state).toBe("completed");
    expect(posted.isDone() && noted.isDone()).toBe(true);
  });
});
