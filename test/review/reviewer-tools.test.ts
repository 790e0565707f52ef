import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool, type ClientTool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildPullDiff } from "../../src/review/diff.js";
import { NewFinding } from "../../src/review/findings.js";
import { reconcileFindings } from "../../src/review/reconcile-findings.js";
import { FindingsStore } from "../../src/review/findings-store.js";
import { ReviewSession, type ReviewSessionOptions } from "../../src/review/review-session.js";
import { createReviewerTools } from "../../src/review/reviewer-tools.js";
import { verdictGuardMiddleware } from "../../src/agent/guards/verdict-guard.js";
import { testRedis, uniquePrefix } from "../helpers/redis.js";

const API = "https://api.github.com";
const pr = { owner: "o", repo: "r", pull_number: 9 };
const diff = buildPullDiff([{ filename: "src/app.ts", patch: "@@ -10,3 +10,4 @@\n   const user = req.user;\n+  const name = user.profile.name;\n   log(user);\n   return ok();" }]);

function session(overrides: Partial<ReviewSessionOptions> = {}): ReviewSession {
  return new ReviewSession({
    octokit: new ProbotOctokit({ auth: { token: "test" }, retry: { enabled: false }, throttle: { enabled: false } }),
    pr,
    headSha: "head1234567",
    prAuthor: "alice",
    diff,
    previous: [],
    store: new FindingsStore(testRedis(), `${uniquePrefix()}:`),
    verdictAuthorized: false,
    botLogins: ["open-swe[bot]"],
    severityFloor: "low",
    unreviewedFiles: [],
    ...overrides,
  });
}

const finding = { path: "src/app.ts", line: 11, side: "RIGHT", severity: "medium", title: "profile may be undefined", body: "`profile` is optional.", rule: "null-deref" };

describe("reviewer tools in an agent run", () => {
  it("rejects an unchanged line with a reason, files, edits, lists, and publishes one COMMENT review for an unauthorized approve", async () => {
    const posted: Array<{ event: string; body: string; comments: Array<{ line: number; body: string }> }> = [];
    nock(API)
      .post("/repos/o/r/pulls/9/reviews", (b: (typeof posted)[number]) => {
        posted.push(b);
        return true;
      })
      .reply(200, { id: 70 })
      .get("/repos/o/r/pulls/9/reviews/70/comments")
      .query(true)
      .reply(200, () => posted[0]!.comments.map((c, i) => ({ id: 800 + i, body: c.body })));

    const ran: string[] = [];
    const execute = tool(
      async ({ command }: { command: string }) => {
        ran.push(command);
        return "ok";
      },
      { name: "execute", description: "shell", schema: z.object({ command: z.string() }) },
    );
    const s = session();
    const id = reconcileFindings({ previous: [], diff, headSha: "head1234567", filed: [NewFinding.parse(finding)] }).added[0]!.id;
    const model = fakeModel()
      .respondWithTools([{ name: "add_finding", args: { ...finding, line: 12 }, id: "t1" }])
      .respondWithTools([{ name: "add_finding", args: finding, id: "t2" }])
      .respondWithTools([{ name: "execute", args: { command: "gh pr review 9 --approve" }, id: "t3" }])
      .respondWithTools([{ name: "update_finding", args: { id, severity: "high" }, id: "t4" }])
      .respondWithTools([{ name: "list_findings", args: {}, id: "t5" }])
      .respondWithTools([{ name: "publish_review", args: { summary: "One risky dereference.", verdict: "approve" }, id: "t6" }])
      .respond(new AIMessage("done"));
    const tools: ClientTool[] = [...createReviewerTools(s), execute];
    const agent = createAgent({ model, tools, middleware: [verdictGuardMiddleware()] });
    const result = await agent.invoke({ messages: [{ role: "user", content: "review PR 9" }] });
    const byCall = new Map(result.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));

    expect(byCall.get("t1")).toMatch(/^rejected: src\/app.ts:12 \(RIGHT\) is unchanged context/);
    expect(byCall.get("t2")).toBe(`accepted as ${id}`);
    expect(byCall.get("t3")).toContain("publish_review");
    expect(ran).toEqual([]);
    expect(byCall.get("t4")).toBe(`updated ${id}`);
    expect(JSON.parse(byCall.get("t5")!)).toEqual([expect.objectContaining({ id, new: true, severity: "high", status: "open" })]);
    expect(byCall.get("t6")).toContain("posted a COMMENT review with 1 inline comment(s)");

    expect(posted).toHaveLength(1);
    expect(posted[0]!.event).toBe("COMMENT");
    expect(posted[0]!.body).toContain("a verdict was not authorized");
    expect(posted[0]!.comments[0]!.body).toContain("**high** · profile may be undefined");
    expect(s.published).toMatchObject({ reviewId: 70, commentsPosted: 1 });
  });

  it("publishes exactly once per pass and refuses to edit earlier passes' findings", async () => {
    nock(API).post("/repos/o/r/pulls/9/reviews").reply(200, { id: 71 });
    const s = session({ verdictAuthorized: true });
    const first = await s.publish({ summary: "Clean.", verdict: "approve" });
    expect(first.event).toBe("APPROVE");
    await expect(s.publish({ summary: "again", verdict: null })).rejects.toMatchObject({ code: "already_published" });

    const earlier = s.listFindings();
    expect(earlier).toEqual([]);
    const withPrevious = session({
      previous: [{ id: "f-old", fingerprint: "x", path: "src/app.ts", line: 11, side: "RIGHT", headSha: "h0", severity: "low", title: "t", body: "b", rule: "r", status: "dismissed" }],
    });
    expect(() => withPrevious.updateFinding("f-old", { severity: "high" })).toThrow(/earlier pass/);
    expect(() => withPrevious.updateFinding("nope", { severity: "high" })).toThrow(/no finding nope/);
  });
});
