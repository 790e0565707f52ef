import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { buildPullDiff } from "../../src/review/diff.js";
import type { NewFinding } from "../../src/review/findings.js";
import { FindingsStore } from "../../src/review/findings-store.js";
import { publishReview, PublishReviewError, type PublishReviewInput } from "../../src/review/publish.js";
import { reconcileFindings } from "../../src/review/reconcile-findings.js";
import { applyHumanResolutions } from "../../src/review/resolve-threads.js";
import { decideVerdict } from "../../src/review/verdict-decision.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const pr = { owner: "o", repo: "r", pull_number: 7 };
const API = "https://api.github.com";

const push1 = buildPullDiff([
  {
    filename: "src/app.ts",
    patch: "@@ -10,3 +10,5 @@ export function handler(req) {\n   const user = req.user;\n+  const name = user.profile.name;\n+  let unused = 1;\n   log(user);\n   return ok();",
  },
]);
const push2Moved = buildPullDiff([
  {
    filename: "src/app.ts",
    patch:
      "@@ -8,5 +8,9 @@\n import { log } from './log.js';\n+import { ok } from './ok.js';\n+\n export function handler(req) {\n   const user = req.user;\n+  const name = user.profile.name;\n+  let unused = 1;\n   log(user);\n   return ok();",
  },
]);
const push3Fixed = buildPullDiff([
  {
    filename: "src/app.ts",
    patch:
      "@@ -8,5 +8,8 @@\n import { log } from './log.js';\n+import { ok } from './ok.js';\n+\n export function handler(req) {\n   const user = req.user;\n+  const name = user.profile?.name;\n   log(user);\n   return ok();",
  },
]);

const nullDeref: NewFinding = {
  path: "src/app.ts",
  line: 11,
  side: "RIGHT",
  severity: "high",
  title: "profile may be undefined",
  body: "`user.profile` is optional.",
  suggestion: "  const name = user.profile?.name;",
  rule: "null-deref",
};
const unusedVar: NewFinding = { path: "src/app.ts", line: 12, side: "RIGHT", severity: "low", title: "unused variable", body: "`unused` is never read.", rule: "unused-variable" };

function octokit(): ProbotOctokit {
  return new ProbotOctokit({ auth: { token: "test" }, retry: { enabled: false }, throttle: { enabled: false } });
}

const noVerdict = decideVerdict({ requested: null, verdictAuthorized: false, prAuthor: "alice", botLogins: ["open-swe[bot]"], hasBlockingFindings: false });

function base(store: FindingsStore, headSha: string): Omit<PublishReviewInput, "findings"> {
  return { octokit: octokit(), ...pr, headSha, summary: "Looked at the handler.", verdict: noVerdict, unreviewedFiles: [], severityFloor: "medium", store };
}

type ReviewBody = { commit_id: string; event: string; body: string; comments: Array<{ path: string; line: number; side: string; body: string }> };

/** Mocks one created review and echoes its inline comments back with ids from 1001. */
function mockCreateReview(reviewId: number, sink: ReviewBody[]): void {
  nock(API)
    .post("/repos/o/r/pulls/7/reviews", (body: ReviewBody) => {
      sink.push(body);
      return true;
    })
    .reply(200, { id: reviewId });
}
function mockReviewComments(reviewId: number, sink: ReviewBody[]): void {
  nock(API)
    .get(`/repos/o/r/pulls/7/reviews/${reviewId}/comments`)
    .query(true)
    .reply(200, () => sink.at(-1)!.comments.map((c, i) => ({ id: 1001 + i, body: c.body })));
}

describe("publishReview across pushes", () => {
  it("posts once, then re-anchors without re-posting, then resolves the fixed finding's thread", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);

    // Pass 1: two findings; the low one is under the medium floor.
    const posted: ReviewBody[] = [];
    mockCreateReview(500, posted);
    mockReviewComments(500, posted);
    const r1 = reconcileFindings({ previous: await store.list(pr), diff: push1, headSha: "sha1aaaaaaa", filed: [nullDeref, unusedVar] });
    const out1 = await publishReview({ ...base(store, "sha1aaaaaaa"), findings: r1.findings, unreviewedFiles: [{ path: "package-lock.json", code: "lockfile", reason: "lock file" }] });

    expect(out1).toMatchObject({ action: "created", reviewId: 500, event: "COMMENT", commentsPosted: 1, warnings: [] });
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ commit_id: "sha1aaaaaaa", event: "COMMENT" });
    expect(posted[0]!.comments).toEqual([{ path: "src/app.ts", line: 11, side: "RIGHT", body: expect.stringContaining("profile may be undefined") }]);
    expect(posted[0]!.comments[0]!.body).toContain("```suggestion\n  const name = user.profile?.name;\n```");
    expect(posted[0]!.body).toContain("Looked at the handler.");
    expect(posted[0]!.body).toContain("`package-lock.json`: lock file");
    expect(posted[0]!.body).toContain("1 finding(s) below the `medium` severity floor");
    const stored1 = await store.list(pr);
    expect(stored1.find((f) => f.rule === "null-deref")).toMatchObject({ githubCommentId: 1001, line: 11 });
    expect(stored1.find((f) => f.rule === "unused-variable")?.githubCommentId).toBeUndefined();
    expect(await store.getState(pr)).toEqual({ summaryReviewId: 500, headSha: "sha1aaaaaaa" });

    // Pass 2: code moved down two lines; the model files the same problem again.
    const edits: Array<{ body: string }> = [];
    nock(API)
      .put("/repos/o/r/pulls/7/reviews/500", (b: { body: string }) => {
        edits.push(b);
        return true;
      })
      .reply(200, { id: 500 });
    const r2 = reconcileFindings({ previous: await store.list(pr), diff: push2Moved, headSha: "sha2bbbbbbb", filed: [{ ...nullDeref, line: 13 }] });
    expect(r2.rejected.map((x) => x.code)).toEqual(["duplicate"]);
    const out2 = await publishReview({ ...base(store, "sha2bbbbbbb"), findings: r2.findings });
    expect(out2).toMatchObject({ action: "updated", reviewId: 500, commentsPosted: 0 });
    expect(edits[0]!.body).toContain("`sha2bbb`");
    expect(edits[0]!.body).toContain("0 new this pass");
    expect((await store.list(pr)).find((f) => f.rule === "null-deref")).toMatchObject({ line: 13, githubCommentId: 1001, status: "open", headSha: "sha2bbbbbbb" });

    // Pass 3: fixed. The summary is edited and our thread is resolved.
    const graphql: Array<{ query: string; variables: Record<string, unknown> }> = [];
    nock(API).put("/repos/o/r/pulls/7/reviews/500").reply(200, { id: 500 });
    nock(API)
      .post("/graphql", (b: { query: string; variables: Record<string, unknown> }) => {
        graphql.push(b);
        return b.query.includes("reviewThreads");
      })
      .reply(200, {
        data: {
          repository: {
            pullRequest: {
              reviewThreads: {
                pageInfo: { hasNextPage: false, endCursor: null },
                nodes: [
                  { id: "PRRT_other", isResolved: false, comments: { nodes: [{ databaseId: 42 }] } },
                  { id: "PRRT_ours", isResolved: false, comments: { nodes: [{ databaseId: 1001 }] } },
                ],
              },
            },
          },
        },
      })
      .post("/graphql", (b: { query: string; variables: Record<string, unknown> }) => {
        graphql.push(b);
        return b.query.includes("resolveReviewThread");
      })
      .reply(200, { data: { resolveReviewThread: { thread: { id: "PRRT_ours", isResolved: true } } } });
    const r3 = reconcileFindings({ previous: await store.list(pr), diff: push3Fixed, headSha: "sha3ccccccc", filed: [] });
    expect(r3.resolved.map((f) => f.rule).sort()).toEqual(["null-deref", "unused-variable"]);
    const out3 = await publishReview({ ...base(store, "sha3ccccccc"), findings: r3.findings });
    expect(out3).toMatchObject({ action: "updated", threadsResolved: 1, warnings: [] });
    expect(graphql[0]!.variables).toMatchObject({ owner: "o", repo: "r", number: 7 });
    expect(graphql[1]!.variables).toEqual({ threadId: "PRRT_ours" });
    expect((await store.list(pr)).find((f) => f.rule === "null-deref")).toMatchObject({ status: "resolved", githubThreadId: "PRRT_ours", threadResolved: true });

    // Pass 4: nothing changed: one summary edit, no thread calls again.
    nock(API).put("/repos/o/r/pulls/7/reviews/500").reply(200, { id: 500 });
    const r4 = reconcileFindings({ previous: await store.list(pr), diff: push3Fixed, headSha: "sha3ccccccc", filed: [] });
    expect(await publishReview({ ...base(store, "sha3ccccccc"), findings: r4.findings })).toMatchObject({ action: "updated", threadsResolved: 0 });
  });
});

describe("publishReview verdicts", () => {
  it("dismisses our stale approval when new findings appear, then posts one COMMENT review", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.setState(pr, { approvalReviewId: 900, summaryReviewId: 900 });
    const dismissals: unknown[] = [];
    nock(API)
      .put("/repos/o/r/pulls/7/reviews/900/dismissals", (b: unknown) => {
        dismissals.push(b);
        return true;
      })
      .reply(200, { id: 900, state: "DISMISSED" });
    const posted: ReviewBody[] = [];
    mockCreateReview(901, posted);
    mockReviewComments(901, posted);
    const state = await store.getState(pr);
    const r = reconcileFindings({ previous: [], diff: push1, headSha: "sha1aaaaaaa", filed: [nullDeref] });
    const verdict = decideVerdict({
      requested: null,
      verdictAuthorized: false,
      prAuthor: "alice",
      botLogins: [],
      hasBlockingFindings: r.added.length > 0,
      previousApprovalReviewId: state.approvalReviewId,
    });
    const out = await publishReview({ ...base(store, "sha1aaaaaaa"), verdict, findings: r.findings });
    expect(dismissals).toEqual([{ message: expect.stringContaining("New findings"), event: "DISMISS" }]);
    expect(out).toMatchObject({ action: "created", reviewId: 901, dismissedReviewId: 900, event: "COMMENT" });
    expect(await store.getState(pr)).toEqual({ summaryReviewId: 901, headSha: "sha1aaaaaaa" });
  });

  it("posts an authorized APPROVE as a new review even when a summary exists, and remembers it", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.setState(pr, { summaryReviewId: 500 });
    const posted: ReviewBody[] = [];
    mockCreateReview(502, posted);
    const verdict = decideVerdict({ requested: "approve", verdictAuthorized: true, prAuthor: "alice", botLogins: [], hasBlockingFindings: false });
    const out = await publishReview({ ...base(store, "sha1aaaaaaa"), verdict, findings: [] });
    expect(posted[0]).toMatchObject({ event: "APPROVE", comments: [] });
    expect(out).toMatchObject({ action: "created", event: "APPROVE" });
    expect(await store.getState(pr)).toMatchObject({ summaryReviewId: 502, approvalReviewId: 502 });
  });

  it("says in the summary that an unauthorized verdict was not given", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const posted: ReviewBody[] = [];
    mockCreateReview(503, posted);
    const verdict = decideVerdict({ requested: "approve", verdictAuthorized: false, prAuthor: "alice", botLogins: [], hasBlockingFindings: false });
    await publishReview({ ...base(store, "sha1aaaaaaa"), verdict, findings: [] });
    expect(posted[0]!.event).toBe("COMMENT");
    expect(posted[0]!.body).toContain("a verdict was not authorized");
  });

  it("falls back to a new review when the old summary cannot be edited, and fails typed when posting fails", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    await store.setState(pr, { summaryReviewId: 500 });
    nock(API).put("/repos/o/r/pulls/7/reviews/500").reply(404, { message: "Not Found" });
    const posted: ReviewBody[] = [];
    mockCreateReview(504, posted);
    const out = await publishReview({ ...base(store, "sha1aaaaaaa"), findings: [] });
    expect(out.reviewId).toBe(504);
    expect(out.warnings[0]).toContain("could not edit summary review 500");

    nock(API).put("/repos/o/r/pulls/7/reviews/504").reply(404, { message: "Not Found" });
    nock(API).post("/repos/o/r/pulls/7/reviews").reply(422, { message: "Unprocessable" });
    const err = await publishReview({ ...base(store, "sha1aaaaaaa"), findings: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublishReviewError);
    expect((err as PublishReviewError).code).toBe("review_post_failed");
  });
});

describe("publishReview when GitHub half-answers", () => {
  it("never re-posts a finding whose review was created even if its comment ids could not be read back", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const posted: ReviewBody[] = [];
    mockCreateReview(600, posted);
    nock(API).get("/repos/o/r/pulls/7/reviews/600/comments").query(true).reply(500, { message: "boom" });
    const r1 = reconcileFindings({ previous: [], diff: push1, headSha: "sha1aaaaaaa", filed: [nullDeref] });
    const out = await publishReview({ ...base(store, "sha1aaaaaaa"), findings: r1.findings });
    expect(out.warnings[0]).toContain("could not read back the comment ids of review 600");
    expect((await store.list(pr))[0]).toMatchObject({ reviewId: 600 });

    nock(API).put("/repos/o/r/pulls/7/reviews/600").reply(200, { id: 600 });
    const r2 = reconcileFindings({ previous: await store.list(pr), diff: push1, headSha: "sha1aaaaaaa", filed: [nullDeref] });
    expect(await publishReview({ ...base(store, "sha1aaaaaaa"), findings: r2.findings })).toMatchObject({ action: "updated", commentsPosted: 0 });
    expect(posted).toHaveLength(1);
  });
});

describe("publishReview when inline comments are refused", () => {
  it("retries once without inline comments, listing the findings in the summary", async () => {
    const store = new FindingsStore(testRedis(), `${uniquePrefix()}:`);
    const bodies: ReviewBody[] = [];
    nock(API)
      .post("/repos/o/r/pulls/7/reviews", (b: ReviewBody) => bodies.push(b) > 0 && b.comments.length > 0)
      .reply(422, { message: "Line could not be resolved" })
      .post("/repos/o/r/pulls/7/reviews", (b: ReviewBody) => bodies.push(b) > 0 && b.comments.length === 0)
      .reply(200, { id: 610 });
    nock(API).get("/repos/o/r/pulls/7/reviews/610/comments").query(true).reply(200, []);
    const r = reconcileFindings({ previous: [], diff: push1, headSha: "sha1aaaaaaa", filed: [nullDeref] });
    const out = await publishReview({ ...base(store, "sha1aaaaaaa"), findings: r.findings });
    expect(out.reviewId).toBe(610);
    expect(out.warnings[0]).toContain("inline comments were rejected");
    expect(bodies.at(-1)!.body).toContain("`src/app.ts:11` **high** · profile may be undefined");
    expect((await store.list(pr))[0]).toMatchObject({ reviewId: 610 });
  });
});

describe("applyHumanResolutions", () => {
  it("a thread a person resolved is dismissed when its line is still there, and never touches other threads", () => {
    const r = reconcileFindings({ previous: [], diff: push1, headSha: "s", filed: [nullDeref, { ...unusedVar, severity: "medium" }] });
    const [a, b] = r.findings.map((f, i) => ({ ...f, githubCommentId: 1001 + i }));
    const out = applyHumanResolutions(
      [a!, b!],
      [
        { id: "T1", isResolved: true, firstCommentId: 1001 },
        { id: "T2", isResolved: false, firstCommentId: 1002 },
        { id: "T3", isResolved: true, firstCommentId: 7 },
      ],
    );
    expect(out[0]).toMatchObject({ status: "open", githubThreadId: "T1", threadResolved: true });
    expect(out[1]).toMatchObject({ status: "open", githubThreadId: "T2" });
    const again = reconcileFindings({ previous: out, diff: push1, headSha: "s2", filed: [nullDeref] });
    expect(again.dismissed).toEqual([expect.objectContaining({ id: a!.id, status: "dismissed", closedBy: "human" })]);
    expect(again.rejected[0]?.code).toBe("previously_closed");
    expect(again.findings.find((f) => f.id === b!.id)).toMatchObject({ status: "open" });
  });
});
