import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { toolMessages } from "../helpers/approval-run.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";
import { BASE_URL } from "../fixtures/jira/payloads.js";
import { JIRA_ENV } from "../sources/jira/jira-fixture.js";

const API = "https://api.github.com";
const INSTALLATION = 5454;

/** `open-swe settings source-repo set jira:ENG octo/hello`: a run asked on GitHub gets that project's Jira tools. */
describe("e2e: a GitHub run of a repository linked to a Jira project", () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "linked-tracker", JIRA_ENV);
    await new SettingsStore(testRedis(), app.prefix).setSourceRepo("jira:ENG", "octo/hello");
  });
  afterAll(async () => app?.stop());

  it("files an issue in the linked project; a write outside it is refused without a call", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "jira_create_issue", args: { summary: "Flaky login test", description: "Seen on CI." } }] },
        { tool_calls: [{ name: "jira_comment", args: { issueKey: "OPS-1", body: "also here" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Filed ENG-501." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(INSTALLATION, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/901/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/41/comments").reply(201, { id: 902 });
    nock(API).patch("/repos/octo/hello/issues/comments/902").reply(200, { id: 902 });
    const created = nock(BASE_URL)
      .post("/rest/api/3/issue", (b: { fields: { project: { key: string }; summary: string } }) => b.fields.project.key === "ENG" && b.fields.summary === "Flaky login test")
      .reply(201, { id: "1", key: "ENG-501" });
    const res = await sendWebhook(app.proc.port!, { event: "issue_comment", payload: issueCommentPayload({ installationId: INSTALLATION, number: 41, issueId: 9041, commentId: 901, body: "@open-swe file a Jira issue for the flaky login test" }) });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(created.isDone()).toBe(true);
    const thread = threadId({ kind: "issue", issueId: 9041 });
    expect(await toolMessages(app.prefix, thread, "jira_create_issue")).toEqual([`Created ENG-501: ${BASE_URL}/browse/ENG-501`]);
    expect(await toolMessages(app.prefix, thread, "jira_comment")).toEqual(["Refused: OPS-1 is outside project ENG, the one linked to this repository."]);
  });
});
