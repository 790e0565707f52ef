import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { FindingsStore } from "../../src/review/findings-store.js";
import { runReviewPass, type ReviewPassInput } from "../../src/review/run-review-pass.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const API = "https://api.github.com";
const pr = { owner: "o", repo: "r", pull_number: 3 };
const APP_PATCH = "@@ -10,3 +10,4 @@\n   const user = req.user;\n+  const name = user.profile.name;\n   log(user);\n   return ok();";
const BIG_PATCH = `@@ -1,1 +1,400 @@\n${"+const x = 1;\n".repeat(400)}`;

type CheckUpdate = { conclusion: string; output: { title: string; summary: string } };

function input(store: FindingsStore, overrides: Partial<ReviewPassInput> = {}): ReviewPassInput {
  return {
    octokit: new ProbotOctokit({ auth: { token: "test" }, retry: { enabled: false }, throttle: { enabled: false } }),
    pr,
    store,
    verdictAuthorized: false,
    botLogins: ["open-swe[bot]"],
    severityFloor: "low",
    ignoredPaths: [],
    tokenBudget: 50_000,
    runReviewer: async () => {},
    ...overrides,
  };
}

function mockPull(state = "open"): void {
  nock(API)
    .get("/repos/o/r/pulls/3")
    .reply(200, { state, draft: false, user: { login: "alice" }, head: { sha: "head0001" } });
}
function mockCheck(updates: CheckUpdate[]): void {
  nock(API)
    .post("/repos/o/r/check-runs")
    .reply(201, { id: 9 })
    .patch("/repos/o/r/check-runs/9", (b: CheckUpdate) => {
      updates.push(b);
      return true;
    })
    .reply(200, { id: 9 });
}
/** The review our pass posts (kept in the returned list) and the read-back of its comments' ids, from `firstCommentId` on. */
function mockReviewPosted(reviewId: number, firstCommentId: number): Array<{ body: string; comments: Array<{ body: string }> }> {
  const posted: Array<{ body: string; comments: Array<{ body: string }> }> = [];
  nock(API)
    .post("/repos/o/r/pulls/3/reviews", (b: (typeof posted)[number]) => {
      posted.push(b);
      return true;
    })
    .reply(200, { id: reviewId })
    .get(`/repos/o/r/pulls/3/reviews/${reviewId}/comments`)
    .query(true)
    .reply(200, () => posted[0]!.comments.map((c, i) => ({ id: firstCommentId + i, body: c.body })));
  return posted;
}
function mockFiles(files: unknown[]): void {
  nock(API).get("/repos/o/r/pulls/3/files").query(true).reply(200, files);
}

describe("runReviewPass", () => {
  it("reviews the budgeted files, publishes what the reviewer filed, and settles success", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const updates: CheckUpdate[] = [];
    mockPull();
    mockCheck(updates);
    mockFiles([
      { filename: "src/app.ts", status: "modified", patch: APP_PATCH },
      { filename: "package-lock.json", status: "modified", patch: "@@ -1 +1 @@\n-a\n+b" },
    ]);
    const posted = mockReviewPosted(40, 600);

    const seen: string[] = [];
    const result = await runReviewPass(
      input(store, {
        runReviewer: async ({ session, files, unreviewed, headSha }) => {
          seen.push(...files.map((f) => f.path), ...unreviewed.map((u) => `skip:${u.path}`), headSha);
          expect(session.fileFinding({ path: "src/app.ts", line: 11, side: "RIGHT", severity: "high", title: "npe", body: "b", rule: "null-deref" })).toMatchObject({ accepted: true });
          await session.publish({ summary: "One issue.", verdict: null });
        },
      }),
    );
    expect(seen).toEqual(["src/app.ts", "skip:package-lock.json", "head0001"]);
    expect(result).toMatchObject({ status: "published", headSha: "head0001", publish: { reviewId: 40, commentsPosted: 1 } });
    expect(posted[0]!.body).toContain("`package-lock.json`: lock file");
    expect(updates).toEqual([expect.objectContaining({ conclusion: "success", output: { title: "Review published", summary: "Posted a COMMENT review with 1 new comment(s)." } })]);
    expect((await store.list(pr))[0]).toMatchObject({ githubCommentId: 600, headSha: "head0001" });
  });

  it("new findings on a PR we approved, and GitHub will not dismiss that approval: the check is neutral and says it still stands", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.setState(pr, { approvalReviewId: 900, summaryReviewId: 900 });
    const updates: CheckUpdate[] = [];
    mockPull();
    mockCheck(updates);
    mockFiles([{ filename: "src/app.ts", status: "modified", patch: APP_PATCH }]);
    nock(API).put("/repos/o/r/pulls/3/reviews/900/dismissals").reply(502, { message: "Server Error" });
    mockReviewPosted(42, 700);
    await runReviewPass(
      input(store, {
        runReviewer: async ({ session }) => {
          session.fileFinding({ path: "src/app.ts", line: 11, side: "RIGHT", severity: "high", title: "npe", body: "b", rule: "null-deref" });
          await session.publish({ summary: "One issue.", verdict: null });
        },
      }),
    );
    expect(updates).toEqual([
      expect.objectContaining({
        conclusion: "neutral",
        output: { title: "Earlier approval still stands", summary: expect.stringMatching(/approval \(review 900\) should have been dismissed .* it still stands/) },
      }),
    ]);
  });

  it("publishes a fallback review when the reviewer never calls publish_review, and settles neutral on budget", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const updates: CheckUpdate[] = [];
    mockPull();
    mockCheck(updates);
    mockFiles([
      { filename: "src/app.ts", status: "modified", patch: APP_PATCH },
      { filename: "src/huge.ts", status: "modified", patch: BIG_PATCH },
    ]);
    const posted: Array<{ body: string }> = [];
    nock(API)
      .post("/repos/o/r/pulls/3/reviews", (b: (typeof posted)[number]) => {
        posted.push(b);
        return true;
      })
      .reply(200, { id: 41 });
    const result = await runReviewPass(input(store, { tokenBudget: 500 }));
    expect(result.status).toBe("published");
    expect(posted[0]!.body).toContain("finished without writing a summary");
    expect(posted[0]!.body).toContain("`src/huge.ts`: over the review budget");
    expect(updates[0]).toMatchObject({ conclusion: "neutral", output: { title: "Review stopped at its budget", summary: expect.stringContaining("src/huge.ts") } });
  });

  it("settles failure and rethrows when the reviewer crashes", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const updates: CheckUpdate[] = [];
    mockPull();
    mockCheck(updates);
    mockFiles([{ filename: "src/app.ts", status: "modified", patch: APP_PATCH }]);
    await expect(
      runReviewPass(
        input(store, {
          runReviewer: async () => {
            throw new Error("model overloaded");
          },
        }),
      ),
    ).rejects.toThrow("model overloaded");
    // The raw text goes to the log, not to the check anyone can read.
    expect(updates).toEqual([
      expect.objectContaining({ conclusion: "failure", output: { title: "Review failed", summary: "The review crashed: an internal error; the worker's log has the details." } }),
    ]);
  });

  it("a model provider's 529 is said as an upstream failure, its body left out", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const updates: CheckUpdate[] = [];
    mockPull();
    mockCheck(updates);
    mockFiles([{ filename: "src/app.ts", status: "modified", patch: APP_PATCH }]);
    const overloaded = Object.assign(new Error('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), { status: 529 });
    await expect(
      runReviewPass(
        input(store, {
          runReviewer: async () => {
            throw overloaded;
          },
        }),
      ),
    ).rejects.toBe(overloaded);
    expect(updates[0]!.output.summary).toBe("The review crashed: an upstream service (GitHub or the model provider) failed (HTTP 529), not a problem with the pull request.");
  });

  it("skips a closed PR and a PR with nothing reviewable, settling neutral with the reason", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const updates: CheckUpdate[] = [];
    mockCheck(updates);
    const closed = { state: "closed", user: { login: "alice" }, head: { sha: "head0001" } };
    expect(await runReviewPass(input(store, { pull: closed }))).toEqual({ status: "skipped", reason: "the pull request is closed" });

    mockPull();
    mockCheck(updates);
    mockFiles([{ filename: "yarn.lock", status: "modified", patch: "@@ -1 +1 @@\n-a\n+b" }]);
    const r = await runReviewPass(input(store));
    expect(r).toEqual({ status: "skipped", reason: "nothing to review: yarn.lock (lock file)" });
    expect(updates.map((u) => [u.conclusion, u.output.title])).toEqual([
      ["neutral", "Review skipped"],
      ["neutral", "Review skipped"],
    ]);
  });

  it("syncs human-resolved threads before a second pass so a resolved finding is not raised again", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.replaceAll(pr, []);
    const first = { path: "src/app.ts", line: 11, side: "RIGHT" as const, severity: "high" as const, title: "npe", body: "b", rule: "null-deref" };
    // Pass 1 posted the finding as comment 600 (set up directly in the store).
    mockPull();
    mockCheck([]);
    mockFiles([{ filename: "src/app.ts", status: "modified", patch: APP_PATCH }]);
    nock(API)
      .post("/repos/o/r/pulls/3/reviews")
      .reply(200, { id: 40 })
      .get("/repos/o/r/pulls/3/reviews/40/comments")
      .query(true)
      .reply(200, (_uri: string) => []);
    await runReviewPass(input(store, { runReviewer: async ({ session }) => void session.fileFinding(first) }));
    const [stored] = await store.list(pr);
    await store.update(pr, stored!.id, { githubCommentId: 600 });

    mockPull();
    mockCheck([]);
    mockFiles([{ filename: "src/app.ts", status: "modified", patch: APP_PATCH }]);
    nock(API)
      .post("/graphql")
      .reply(200, {
        data: {
          repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [{ id: "T600", isResolved: true, comments: { nodes: [{ databaseId: 600 }] } }] } } },
        },
      })
      .put("/repos/o/r/pulls/3/reviews/40")
      .reply(200, { id: 40 });
    let refiled = "";
    await runReviewPass(
      input(store, {
        runReviewer: async ({ session }) => {
          const r = session.fileFinding(first);
          refiled = r.accepted ? "accepted" : r.reason;
        },
      }),
    );
    expect(refiled).toMatch(/was dismissed; it is not raised again/);
    expect((await store.list(pr))[0]).toMatchObject({ status: "dismissed", closedBy: "human", githubThreadId: "T600", threadResolved: true });
  });
});
