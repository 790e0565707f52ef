import { writeFileSync } from "node:fs";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { deliveryJobId } from "../../src/queue/job-ids.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { issueCommentPayload, mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

const API = "https://api.github.com";
const INSTALLATION = 5353;
const APP_ID = "12345";
/** GitHub's word on the app's bot. */
const BOT = "acme-swe[bot] <4242+acme-swe[bot]@users.noreply.github.com>";

/**
 * Issue #42 (High 2): the Redis state that steers a push is input, not authority. Someone who can write
 * Redis (not the web tier's or the worker's key) edits the bot account the worker authors commits as, or
 * the branch a thread pushes to; the worker's push follows neither.
 */
describe("a run's push is not steered by Redis state the worker did not seal", () => {
  let app: E2eApp;
  let remote: ReturnType<typeof makeBareRemote>;
  const lines: string[] = [];

  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello");
    app = await startE2eApp(remote.template, "push-steering", {}, { log: createLogger("warn", "test", { write: (line: string) => void lines.push(line) }) });
  });
  afterAll(async () => app?.stop());

  const script = (file: string) =>
    writeFileSync(
      app.replay,
      JSON.stringify([
        { tool_calls: [{ name: "write_file", args: { file_path: `/workspace/${file}`, content: "hi\n" } }] },
        { tool_calls: [{ name: "commit_and_push", args: { message: `Add ${file}` } }] },
        { tool_calls: [{ name: "confirming_completion", args: { summary: "done" } }] },
      ]),
    );

  /** The GitHub side of one run on issue `number`; the reply's body is handed to `onReply`. */
  const mockRun = (o: { number: number; commentId: number; first: boolean; onReply?: (body: string) => void }) => {
    if (o.first) {
      mockInstallationToken(INSTALLATION, 2);
      nock(API).get("/repos/octo/hello/collaborators/dana/permission").reply(200, { permission: "write", role_name: "write" });
    }
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/hello").reply(200, { default_branch: "main" });
    // The run's reaction goes out as its agent loop starts: a run refused before it gets none.
    if (!o.onReply) nock(API).post(`/repos/octo/hello/issues/comments/${o.commentId}/reactions`).reply(201, {});
    nock(API)
      .post(`/repos/octo/hello/issues/${o.number}/comments`, (body: { body: string }) => (o.onReply?.(body.body), true))
      .reply(201, { id: o.commentId + 1 });
  };

  const ask = async (o: { number: number; issueId: number; commentId: number; file: string }) => {
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: issueCommentPayload({ installationId: INSTALLATION, number: o.number, issueId: o.issueId, commentId: o.commentId, body: `@open-swe add ${o.file}` }),
    });
    return waitForJob(app.proc.queues.queues.agent, deliveryJobId(res.deliveryId), 60_000);
  };

  it("(1) a bot account written into Redis by hand is ignored (one warning) and read again from GitHub: the pushed commit is the real bot's", async () => {
    const key = `${app.prefix}:bot-account:${APP_ID}`;
    // What the cache held before it was sealed, and the same with a made-up seal beside it.
    await testRedis().set(key, JSON.stringify({ slug: "mallory", id: 666 }), "EX", 3600);
    await testRedis().set(`${key}:seal`, "0".repeat(64), "EX", 3600);
    nock(API).get("/app").reply(200, { id: 12345, slug: "acme-swe", name: "Acme SWE" });
    nock(API).get("/users/acme-swe%5Bbot%5D").reply(200, { login: "acme-swe[bot]", id: 4242, type: "Bot" });
    mockRun({ number: 71, commentId: 901, first: true });
    script("ONE.md");
    lines.length = 0;
    const done = await ask({ number: 71, issueId: 7071, commentId: 901, file: "ONE.md" });
    expect(done.state).toBe("completed");
    const branch = remote
      .git("branch", "--list", "open-swe/*")
      .split("\n")
      .map((b) => b.replace(/^\*?\s*/, ""))
      .find((b) => remote.git("ls-tree", "--name-only", b).includes("ONE.md"))!;
    expect(remote.git("log", "-1", "--format=%an <%ae>|%cn <%ce>", branch).trim()).toBe(`${BOT}|${BOT}`);
    expect(lines.filter((l) => l.includes("bot account cache ignored"))).toHaveLength(1);
    // Cached again, sealed: the forged value is gone.
    expect(JSON.parse((await testRedis().get(key))!)).toEqual({ slug: "acme-swe", id: 4242 });
  });

  it("(2) a thread's branch set to `main` by hand: the run refuses with a reason and pushes nothing to main", async () => {
    const mainBefore = remote.git("rev-parse", "main").trim();
    const thread = threadId({ kind: "issue", issueId: 7072 });
    await testRedis().set(`${app.prefix}:thread:${thread}:branch`, "main", "EX", 3600);
    const replies: string[] = [];
    mockRun({ number: 72, commentId: 911, first: false, onReply: (b) => void replies.push(b) });
    script("TWO.md");
    lines.length = 0;
    const done = await ask({ number: 72, issueId: 7072, commentId: 911, file: "TWO.md" });
    expect(done.state).toBe("failed");
    expect(done.failedReason).toMatch(/not this thread's branch/);
    expect(remote.git("rev-parse", "main").trim()).toBe(mainBefore);
    expect(remote.git("ls-tree", "--name-only", "main")).not.toContain("TWO.md");
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatch(/^I could not start on this: .*`main`, is not this thread's branch/s);
    expect(lines.filter((l) => l.includes("not this thread's branch") && l.includes(thread))).not.toHaveLength(0);
  });
});
