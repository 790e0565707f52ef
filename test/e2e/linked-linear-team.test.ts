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
import { APP_USER, SECRET, TEAM } from "../sources/linear/linear-fixtures.js";
import { mockLinear, type GraphqlCall } from "../sources/linear/linear-nock.js";

const API = "https://api.github.com";
const INSTALLATION = 5455;
const OTHER_TEAM = "team-0002";

/** `open-swe settings source-repo set linear:<team id> octo/hello`: a run asked on GitHub gets that team's Linear tools. */
describe("e2e: a GitHub run of a repository linked to a Linear team", () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "linked-linear", { LINEAR_WEBHOOK_SECRET: SECRET, LINEAR_API_KEY: "lin_api_test", LINEAR_APP_USER_ID: APP_USER });
    await new SettingsStore(testRedis(), app.prefix).setSourceRepo(`linear:${TEAM}`, "octo/hello");
  });
  afterAll(async () => app?.stop());

  it("files an issue in the linked team; a comment on another team's issue is refused with no mutation sent", async () => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "linear_create_issue", args: { title: "Flaky login test", description: "Seen on CI." } }] },
        { tool_calls: [{ name: "linear_comment", args: { issueId: "OPS-7", body: "also here" } }] },
        { tool_calls: [{ name: "github_comment", args: { body: "Filed ENG-501." } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    mockInstallationToken(INSTALLATION, 2);
    nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post("/repos/octo/hello/issues/comments/911/reactions").reply(201, {});
    nock(API).post("/repos/octo/hello/issues/42/comments").reply(201, { id: 912 });
    nock(API).patch("/repos/octo/hello/issues/comments/912").reply(200, { id: 912 });
    const creates: GraphqlCall[] = [];
    mockLinear("OpenSweIssueCreate", { data: { issueCreate: { success: true, issue: { id: "issue-0501", identifier: "ENG-501", title: "Flaky login test", url: "https://linear.app/acme/issue/ENG-501" } } } }, { calls: creates });
    const lookups: GraphqlCall[] = [];
    mockLinear("OpenSweIssueTeam", { data: { issue: { id: "issue-0007", identifier: "OPS-7", team: { id: OTHER_TEAM, key: "OPS" } } } }, { calls: lookups });
    // No OpenSweCommentCreate mock: a comment sent to Linear would find no interceptor and fail the tool call.
    const res = await sendWebhook(app.proc.port!, { event: "issue_comment", payload: issueCommentPayload({ installationId: INSTALLATION, number: 42, issueId: 9042, commentId: 911, body: "@open-swe file a Linear issue for the flaky login test" }) });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(creates.map((c) => c.variables)).toEqual([{ input: { title: "Flaky login test", description: "Seen on CI.", teamId: TEAM } }]);
    expect(lookups.map((c) => c.variables)).toEqual([{ id: "OPS-7" }]);
    const thread = threadId({ kind: "issue", issueId: 9042 });
    expect(JSON.parse((await toolMessages(app.prefix, thread, "linear_create_issue"))[0]!)).toMatchObject({ identifier: "ENG-501" });
    expect(await toolMessages(app.prefix, thread, "linear_comment")).toEqual([`Refused: OPS-7 is outside team ${TEAM}, the one linked to this repository; writes stay in that team.`]);
  });
});
