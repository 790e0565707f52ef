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
import { APP_USER, SECRET as LINEAR_SECRET, TEAM } from "../sources/linear/linear-fixtures.js";
import { mockLinear, type GraphqlCall } from "../sources/linear/linear-nock.js";

const API = "https://api.github.com";
const INSTALLATION = 5400;
const LINEAR_ENV = { LINEAR_WEBHOOK_SECRET: LINEAR_SECRET, LINEAR_API_KEY: "lin_api_test", LINEAR_APP_USER_ID: APP_USER };

/**
 * `open-swe settings source-repo set jira:ENG octo/hello` and `… linear:<team id> octo/hello`: a run asked
 * on GitHub gets that project's Jira tools and that team's Linear tools, writes kept to them.
 */
describe("e2e: a GitHub run of a repository linked to a Jira project and a Linear team", () => {
  let app: E2eApp;

  beforeAll(async () => {
    app = await startE2eApp(makeBareRemote("octo", "hello").template, "linked-tracker", { ...JIRA_ENV, ...LINEAR_ENV });
    const settings = new SettingsStore(testRedis(), app.prefix);
    await settings.setSourceRepo("jira:ENG", "octo/hello");
    await settings.setSourceRepo(`linear:${TEAM}`, "octo/hello");
  });
  afterAll(async () => app?.stop());

  /** `@open-swe <body>` on issue `n` of octo/hello, the model replaying `calls`; resolves with the run's thread. */
  // Each run is its own installation and asker: tokens and permissions are cached per app process.
  async function askOnGitHub(n: number, login: string, body: string, calls: Array<{ name: string; args: Record<string, unknown> }>) {
    writeFileSync(app.replay, JSON.stringify(calls.map((c) => ({ tool_calls: [c] }))));
    mockInstallationToken(INSTALLATION + n, 2);
    nock(API).get(`/repos/octo/hello/collaborators/${login}/permission`).reply(200, { permission: "write", role_name: "write" });
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post(`/repos/octo/hello/issues/comments/${n}01/reactions`).reply(201, {});
    nock(API)
      .post(`/repos/octo/hello/issues/${n}/comments`)
      .reply(201, { id: Number(`${n}02`) });
    nock(API)
      .patch(`/repos/octo/hello/issues/comments/${n}02`)
      .reply(200, { id: Number(`${n}02`) });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION + n, login, number: n, issueId: 9000 + n, commentId: Number(`${n}01`), body }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    return threadId({ kind: "issue", issueId: 9000 + n });
  }

  it("Jira: files an issue in the linked project; a write outside it is refused without a call", async () => {
    const created = nock(BASE_URL)
      .post("/rest/api/3/issue", (b: { fields: { project: { key: string }; summary: string } }) => b.fields.project.key === "ENG" && b.fields.summary === "Flaky login test")
      .reply(201, { id: "1", key: "ENG-501" });
    const thread = await askOnGitHub(41, "dana", "@open-swe file a Jira issue for the flaky login test", [
      { name: "jira_create_issue", args: { summary: "Flaky login test", description: "Seen on CI." } },
      { name: "jira_comment", args: { issueKey: "OPS-1", body: "also here" } },
      { name: "github_comment", args: { body: "Filed ENG-501." } },
      { name: "confirming_completion", args: { summary: "done" } },
    ]);
    expect(created.isDone()).toBe(true);
    expect(await toolMessages(app.prefix, thread, "jira_create_issue")).toEqual([`Created ENG-501: ${BASE_URL}/browse/ENG-501`]);
    expect(await toolMessages(app.prefix, thread, "jira_comment")).toEqual(["Refused: OPS-1 is outside project ENG, the one linked to this repository."]);
  });

  it("Linear: files an issue in the linked team; a comment on another team's issue is refused with no mutation sent", async () => {
    const creates: GraphqlCall[] = [];
    mockLinear(
      "OpenSweIssueCreate",
      { data: { issueCreate: { success: true, issue: { id: "issue-0501", identifier: "ENG-501", title: "Flaky login test", url: "https://linear.app/acme/issue/ENG-501" } } } },
      { calls: creates },
    );
    const lookups: GraphqlCall[] = [];
    mockLinear("OpenSweIssueTeam", { data: { issue: { id: "issue-0007", identifier: "OPS-7", team: { id: "team-0002", key: "OPS" } } } }, { calls: lookups });
    // No OpenSweCommentCreate mock: a comment sent to Linear would find no interceptor and fail the tool call.
    const thread = await askOnGitHub(42, "lee", "@open-swe file a Linear issue for the flaky login test", [
      { name: "linear_create_issue", args: { title: "Flaky login test", description: "Seen on CI." } },
      { name: "linear_comment", args: { issueId: "OPS-7", body: "also here" } },
      { name: "github_comment", args: { body: "Filed ENG-501." } },
      { name: "confirming_completion", args: { summary: "done" } },
    ]);
    expect(creates.map((c) => c.variables)).toEqual([{ input: { title: "Flaky login test", description: "Seen on CI.", teamId: TEAM } }]);
    expect(lookups.map((c) => c.variables)).toEqual([{ id: "OPS-7" }]);
    expect(JSON.parse((await toolMessages(app.prefix, thread, "linear_create_issue"))[0]!)).toMatchObject({ identifier: "ENG-501" });
    expect(await toolMessages(app.prefix, thread, "linear_comment")).toEqual([`Refused: OPS-7 is outside team ${TEAM}, the one linked to this repository; writes stay in that team.`]);
  });
});
