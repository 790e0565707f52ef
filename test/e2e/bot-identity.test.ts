import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";

const API = "https://api.github.com";
const INSTALLATION = 5252;

/** The commits a run pushes are the app's own bot's, as GitHub links them: `<id>+<slug>[bot]@users.noreply…`. */
describe("e2e: a run's commits are authored by the app's bot", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "bot-identity");
  });
  afterAll(async () => app?.stop());

  const run = async (o: { number: number; issueId: number; commentId: number; file: string; first: boolean }) => {
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: `/workspace/${o.file}`, content: "hi\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: `Add ${o.file}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );
    if (o.first) {
      // The installation token and the writer's permission are cached for the second run too.
      mockInstallationToken(INSTALLATION, 2);
      nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    }
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    nock(API).post(`/repos/octo/hello/issues/comments/${o.commentId}/reactions`).reply(201, {});
    nock(API)
      .post(`/repos/octo/hello/issues/${o.number}/comments`)
      .reply(201, { id: o.commentId + 1 });
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION, number: o.number, issueId: o.issueId, commentId: o.commentId, body: `@open-swe add ${o.file}` }),
    });
    const done = await waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
    expect(done.state).toBe("completed");
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .split("\n")
      .map((b) => b.replace(/^\*?\s*/, ""))
      .find((b) => remote.git("ls-tree", "--name-only", b).includes(o.file))!;
    return remote.git("log", "-1", "--format=%an <%ae>|%cn <%ce>", branch).trim();
  };

  it("reads the bot's slug and id from GitHub once and authors the pushed commit with them; the next run uses the cached account", async () => {
    nock(API).get("/app").reply(200, { id: 12345, slug: "acme-swe", name: "Acme SWE" });
    nock(API).get("/users/acme-swe%5Bbot%5D").reply(200, { login: "acme-swe[bot]", id: 4242, type: "Bot" });
    const bot = "acme-swe[bot] <4242+acme-swe[bot]@users.noreply.github.com>";
    expect(await run({ number: 61, issueId: 6061, commentId: 701, file: "ONE.md", first: true })).toBe(`${bot}|${bot}`);
    // No GitHub mock for the account this time: a second read would fall back to the id-less address.
    expect(await run({ number: 62, issueId: 6062, commentId: 711, file: "TWO.md", first: false })).toBe(`${bot}|${bot}`);
  });
});
