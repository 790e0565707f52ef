import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryJobId, reviewJobId } from "../../src/queue/job-ids.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { threadId } from "../../src/shared/thread-id.js";
import { startE2eApp, type E2eApp } from "../helpers/e2e-app.js";
import { makeBareRemote } from "../helpers/git-remote.js";
import { mockInstallationToken, sendWebhook } from "../helpers/github-app.js";
import { waitForJob } from "../helpers/jobs.js";
import { testRedis } from "../helpers/redis.js";

// The review pass must get what the repo config and the app's identity say: these tests go red when
// run-review.ts passes `ignoredPaths: []`, `severityFloor: "low"` or `botLogins: []`.

const API = "https://api.github.com";
const repoInfo = { name: "hello", full_name: "octo/hello", owner: { login: "octo" } };
const BASE = "export function greet(user) {\n  return 'hi';\n}\n";
const BUGGY = "export function greet(user) {\n  const name = user.profile.name;\n  const shout = name.toUpperCase();\n  return `hi ${shout}`;\n}\n";
type Remote = ReturnType<typeof makeBareRemote>;
type ReviewPost = { event: string; body: string; comments: Array<{ path: string; line: number; body: string }> };

function pushHead(remote: Remote, n: number, files: Record<string, string>): { sha: string; patches: Record<string, string> } {
  const work = mkdtempSync(join(tmpdir(), "open-swe-wiring-"));
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: work, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@e", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@e" } });
  git("clone", "-q", remote.bare, ".");
  for (const [path, content] of Object.entries(files)) {
    execFileSync("mkdir", ["-p", join(work, path, "..")]);
    writeFileSync(join(work, path), content);
  }
  git("add", "-A");
  git("commit", "-q", "-m", `pr ${n}`);
  const sha = git("rev-parse", "HEAD").trim();
  git("push", "-q", "-f", "origin", `HEAD:refs/pull/${n}/head`);
  const patches: Record<string, string> = {};
  for (const path of Object.keys(files)) {
    const diff = git("diff", "origin/main", sha, "--", path);
    patches[path] = diff.slice(diff.indexOf("@@")).replace(/\n$/, "");
  }
  return { sha, patches };
}

function mockPass(n: number, sha: string, pull: object, files: Array<{ filename: string; patch: string }>, config: string | null): ReviewPost[] {
  nock(API).get(`/repos/octo/hello/pulls/${n}`).reply(200, pull);
  if (config === null) {
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(404, {});
    nock(API).get("/repos/octo/.github/contents/.github%2Fopen-swe.yml").reply(404, {});
  } else {
    nock(API).get("/repos/octo/hello/contents/.github%2Fopen-swe.yml").reply(200, config);
  }
  nock(API)
    .post("/repos/octo/hello/check-runs", (b: { head_sha: string }) => b.head_sha === sha)
    .reply(201, { id: 300 + n })
    .patch(`/repos/octo/hello/check-runs/${300 + n}`)
    .reply(200, {});
  nock(API)
    .get(`/repos/octo/hello/pulls/${n}/files`)
    .query(true)
    .reply(
      200,
      files.map((f) => ({ ...f, status: "modified" })),
    );
  const posted: ReviewPost[] = [];
  nock(API)
    .post(`/repos/octo/hello/pulls/${n}/reviews`, (b: ReviewPost) => {
      posted.push(b);
      return true;
    })
    .reply(200, { id: 800 + n })
    .get(`/repos/octo/hello/pulls/${n}/reviews/${800 + n}/comments`)
    .query(true)
    .optionally()
    .reply(200, () => posted[0]!.comments.map((c, i) => ({ id: 9000 + i, body: c.body })));
  return posted;
}

describe("e2e: the review pass gets the repo's config and the app's identity", () => {
  let app: E2eApp;
  let remote: Remote;
  beforeAll(async () => {
    remote = makeBareRemote("octo", "hello", { "README.md": "# hello\n", "app.js": BASE });
    app = await startE2eApp(remote.template, "review-wiring");
    await new SettingsStore(testRedis(), app.prefix).enableRepo("octo/hello");
  });
  afterAll(async () => app?.stop());

  it("review.ignored_paths leaves files out and review.severity_floor hides findings below it", async () => {
    const head = pushHead(remote, 20, { "app.js": BUGGY, "gen/out.js": "export const x = 1;\n" });
    writeFileSync(
      app.replay,
      JSON.stringify([
        {
          tool_calls: [
            { name: "add_finding", args: { path: "app.js", line: 2, side: "RIGHT", severity: "high", title: "Crashes for guests", body: "`user.profile` may be undefined.", rule: "null-deref" } },
          ],
        },
        { tool_calls: [{ name: "add_finding", args: { path: "app.js", line: 3, side: "RIGHT", severity: "low", title: "Shouting", body: "Why upper case?", rule: "style" } }] },
        { tool_calls: [{ name: "publish_review", args: { summary: "One crash, one nit." } }] },
        { text: "Done." },
      ]),
    );
    mockInstallationToken(6020, 2);
    const pull = { number: 20, state: "open", draft: false, title: "Greet", body: "", user: { login: "alice", type: "User" }, head: { sha: head.sha, ref: "f20" }, base: { ref: "main" } };
    const posted = mockPass(
      20,
      head.sha,
      pull,
      [
        { filename: "app.js", patch: head.patches["app.js"]! },
        { filename: "gen/out.js", patch: head.patches["gen/out.js"]! },
      ],
      'review:\n  ignored_paths: ["gen/**"]\n  severity_floor: medium\n',
    );
    await sendWebhook(app.proc.port!, {
      event: "pull_request",
      payload: { action: "opened", installation: { id: 6020 }, repository: repoInfo, sender: { login: "alice", id: 40, type: "User" }, pull_request: pull },
    });
    const done = await waitForJob(app.proc.queues.queues.review, reviewJobId(threadId({ kind: "reviewer", owner: "octo", repo: "hello", number: 20 }), head.sha, "opened"), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(posted).toHaveLength(1);
    expect(
      posted[0]!.comments.map((c) => [c.path, c.line]),
      posted[0]!.body,
    ).toEqual([["app.js", 2]]);
    expect(posted[0]!.body).toMatch(/1 finding\(s\) below the `medium` severity floor are not shown/);
    expect(posted[0]!.body).toMatch(/`gen\/out\.js`: .*ignored/);
  });

  it("a verdict on the app's own pull request is withheld (the bot logins reach the pass)", async () => {
    const head = pushHead(remote, 21, { "README.md": "# hello\n\nBy the bot.\n" });
    writeFileSync(app.replay, JSON.stringify([{ tool_calls: [{ name: "publish_review", args: { summary: "Looks fine.", verdict: "approve" } }] }, { text: "Done." }]));
    mockInstallationToken(6021, 2);
    nock(API)
      .get("/repos/octo/hello/collaborators/dana/permission")
      .reply(200, { permission: "write", role_name: "write", user: { login: "dana" } });
    const pull = { number: 21, state: "open", draft: false, title: "Docs", body: "", user: { login: "open-swe[bot]", type: "Bot" }, head: { sha: head.sha, ref: "open-swe/x" }, base: { ref: "main" } };
    const posted = mockPass(21, head.sha, pull, [{ filename: "README.md", patch: head.patches["README.md"]! }], null);
    const res = await sendWebhook(app.proc.port!, {
      event: "issue_comment",
      payload: {
        action: "created",
        installation: { id: 6021 },
        repository: repoInfo,
        sender: { login: "dana", id: 31, type: "User" },
        issue: { number: 21, id: 2121, pull_request: { url: "x" } },
        comment: { id: 3021, body: "@open-swe review --verdict", user: { login: "dana", id: 31, type: "User" } },
      },
    });
    const done = await waitForJob(app.proc.queues.queues.review, deliveryJobId(res.deliveryId), 60_000);
    expect(done.failedReason).toBeUndefined();
    expect(posted).toHaveLength(1);
    expect(posted[0]!.event).toBe("COMMENT");
    expect(posted[0]!.body).toMatch(/opened by a bot of ours/);
  });
});
