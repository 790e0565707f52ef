import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { REVIEW_CHECK_NAME, type CheckOutcome, type CheckRunTarget } from "../../src/review/check-run.js";
import { ReviewCheck, withSettledCheckRun } from "../../src/review/review-check.js";

const API = "https://api.github.com";

function target(): CheckRunTarget {
  const octokit = new ProbotOctokit({ auth: { token: "test" }, retry: { enabled: false }, throttle: { enabled: false } });
  return { octokit, owner: "o", repo: "r", headSha: "abc123" };
}

type Update = { status: string; conclusion: string; output: { title: string; summary: string } };

function mockCheckRun(updates: Update[], created: unknown[] = []): void {
  nock(API)
    .post("/repos/o/r/check-runs", (b: unknown) => {
      created.push(b);
      return true;
    })
    .reply(201, { id: 55 })
    .patch("/repos/o/r/check-runs/55", (b: Update) => {
      updates.push(b);
      return true;
    })
    .reply(200, { id: 55 });
}

describe("withSettledCheckRun", () => {
  it("settles the check run as failure when the review crashes, and rethrows the crash", async () => {
    const updates: Update[] = [];
    const created: unknown[] = [];
    mockCheckRun(updates, created);
    const crash = new Error("sandbox exploded");
    await expect(
      withSettledCheckRun(target(), async (id) => {
        expect(id).toBe(55);
        throw crash;
      }),
    ).rejects.toBe(crash);
    expect(created[0]).toMatchObject({ name: REVIEW_CHECK_NAME, head_sha: "abc123", status: "in_progress" });
    expect(updates).toEqual([
      {
        status: "completed",
        conclusion: "failure",
        completed_at: expect.any(String),
        output: { title: "Review failed", summary: "The review crashed: an internal error; the worker's log has the details." },
      },
    ]);
  });

  const outcomes: Array<[CheckOutcome, string]> = [
    [{ conclusion: "success", summary: "2 findings" }, "Review published"],
    [{ conclusion: "neutral", reason: "skipped", summary: "draft PR" }, "Review skipped"],
    [{ conclusion: "neutral", reason: "too_large", summary: "3,000 files" }, "Pull request too large to review"],
    [{ conclusion: "neutral", reason: "budget", summary: "12 files not reviewed" }, "Review stopped at its budget"],
  ];
  it.each(outcomes)("settles with %j", async (outcome, title) => {
    const updates: Update[] = [];
    mockCheckRun(updates);
    const result = await withSettledCheckRun(target(), async () => ({ outcome, result: 7 }));
    expect(result).toBe(7);
    expect(updates[0]).toMatchObject({ status: "completed", conclusion: outcome.conclusion, output: { title, summary: outcome.summary } });
  });

  it("still runs the review when the check run cannot be created", async () => {
    nock(API).post("/repos/o/r/check-runs").reply(403, { message: "Resource not accessible by integration" });
    const result = await withSettledCheckRun(target(), async (id) => ({ outcome: { conclusion: "success", summary: "ok" }, result: id }));
    expect(result).toBeNull();
  });
});

describe("ReviewCheck", () => {
  it("when the in-progress check could not be created, settling creates it completed with the outcome", async () => {
    nock(API)
      .post("/repos/o/r/check-runs", (b: { status: string }) => b.status === "in_progress")
      .reply(502, { message: "bad gateway" });
    const created: Array<{ status: string; conclusion: string; head_sha: string; output: { title: string } }> = [];
    nock(API)
      .post("/repos/o/r/check-runs", (b: (typeof created)[number]) => {
        created.push(b);
        return b.status === "completed";
      })
      .reply(201, { id: 56 });
    const check = new ReviewCheck(target());
    await check.start("abc123");
    await check.settle({ conclusion: "neutral", reason: "incomplete", summary: "stopped at the call limit" });
    expect(created).toEqual([
      expect.objectContaining({
        name: REVIEW_CHECK_NAME,
        head_sha: "abc123",
        status: "completed",
        conclusion: "neutral",
        output: { title: "Review incomplete", summary: "stopped at the call limit" },
      }),
    ]);
  });

  it("settles once: a later settle is a no-op, and one never started settles nothing", async () => {
    const updates: Update[] = [];
    mockCheckRun(updates);
    const check = new ReviewCheck(target());
    await check.settle({ conclusion: "success", summary: "nothing open" });
    await check.start("abc123");
    await check.settle({ conclusion: "success", summary: "first" });
    await check.settle({ conclusion: "failure", summary: "second" });
    expect(updates).toEqual([expect.objectContaining({ conclusion: "success", output: { title: "Review published", summary: "first" } })]);
    expect(check.open).toBe(false);
  });
});
