import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../../src/review/findings.js";
import { FindingsStore } from "../../../src/review/findings-store.js";
import { collectReviewSamples } from "../../../src/review/style/review-samples.js";
import { collectFindingOutcomes, runStyleAnalyzer } from "../../../src/review/style/run-style-analyzer.js";
import { renderStyleAppendix, StyleStore } from "../../../src/review/style/style-store.js";
import { testRedis, uniquePrefix } from "../../helpers/redis.js";

const API = "https://api.github.com";
const repo = { owner: "o", repo: "r" };

function octokit(): ProbotOctokit {
  return new ProbotOctokit({ auth: { token: "test" }, retry: { enabled: false }, throttle: { enabled: false } });
}

describe("style analyzer", () => {
  it("bootstrap: samples human review comments, and the scripted model saves a style prompt", async () => {
    nock(API)
      .get("/repos/o/r/pulls")
      .query((q) => q["state"] === "closed")
      .reply(200, [{ number: 11 }, { number: 10 }])
      .get("/repos/o/r/pulls/11/comments")
      .query(true)
      .reply(200, [
        { user: { login: "alice", type: "User" }, body: "Prefer early returns over nested ifs here.", path: "src/a.ts", diff_hunk: "@@" },
        { user: { login: "renovate[bot]", type: "Bot" }, body: "This PR updates a dependency to a new version.", path: "package.json" },
      ])
      .get("/repos/o/r/pulls/10/comments")
      .query(true)
      .reply(200, [{ user: { login: "bob", type: "User" }, body: "Name booleans as questions: isReady, hasItems.", path: "src/b.ts" }]);
    const samples = await collectReviewSamples(octokit(), repo, ["open-swe[bot]"]);
    expect(samples.map((s) => s.reviewer)).toEqual(["alice", "bob"]);

    const styleStore = new StyleStore(testRedis(), `${uniquePrefix()}:`);
    const prompt = "- Prefer early returns.\n- Booleans read as questions (isReady).";
    const model = fakeModel()
      .respondWithTools([{ name: "read_review_samples", args: {}, id: "s1" }])
      .respondWithTools([{ name: "save_review_style_prompt", args: { prompt }, id: "s2" }])
      .respond(new AIMessage("saved"));
    const saved = await runStyleAnalyzer({ mode: "bootstrap", model, repo, instructions: "Bootstrap skill.", styleStore, samples });
    expect(saved).toMatchObject({ prompt, mode: "bootstrap", version: 1 });
    expect(await styleStore.get(repo)).toEqual(saved);
    const sampleMessage = model.calls[1]!.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(String(sampleMessage?.content)).toContain("Prefer early returns over nested ifs");
    expect(String(sampleMessage?.content)).not.toContain("renovate");
    expect(renderStyleAppendix(saved)).toContain("## Repository-specific review style");
    expect(renderStyleAppendix(null)).toBe("");
  });

  it("continual: reads outcomes across the repo's PRs (thumbs-down counts as rejected) and refines the prompt", async () => {
    const redis = testRedis();
    const prefix = `${uniquePrefix()}:`;
    const store = new FindingsStore(redis, prefix);
    const base: Finding = { id: "a", fingerprint: "a", path: "a.ts", line: 1, side: "RIGHT", headSha: "h", severity: "low", title: "nit", body: "b", rule: "style-nit", status: "open" };
    await store.replaceAll({ ...repo, pull_number: 1 }, [
      { ...base, status: "dismissed" },
      { ...base, id: "b", rule: "null-deref", status: "resolved", closedBy: "fix" },
    ]);
    await store.replaceAll({ ...repo, pull_number: 2 }, [{ ...base, id: "c", githubCommentId: 77 }]);
    await store.replaceAll({ owner: "o", repo: "other", pull_number: 1 }, [{ ...base, id: "z" }]);
    nock(API)
      .get("/repos/o/r/pulls/comments/77/reactions")
      .query({ content: "-1", per_page: "1" })
      .reply(200, [{ id: 1, content: "-1" }]);

    const outcomes = await collectFindingOutcomes({ octokit: octokit(), store, ...repo });
    expect(outcomes.map((o) => [o.pull, o.id, o.outcome])).toEqual([
      ["o/r#1", "a", "rejected"],
      ["o/r#1", "b", "accepted"],
      ["o/r#2", "c", "rejected"],
    ]);

    const styleStore = new StyleStore(redis, prefix);
    await styleStore.save(repo, "- Flag style nits.", "bootstrap");
    const model = fakeModel()
      .respondWithTools([
        { name: "read_current_style", args: {}, id: "c0" },
        { name: "read_finding_outcomes", args: {}, id: "c1" },
      ])
      .respondWithTools([{ name: "save_review_style_prompt", args: { prompt: "- Do not flag style nits; the team rejects them.\n- Keep null-deref checks." }, id: "c2" }])
      .respond(new AIMessage("done"));
    const saved = await runStyleAnalyzer({ mode: "continual", model, repo, instructions: "Continual skill.", styleStore, outcomes });
    expect(saved).toMatchObject({ mode: "continual", version: 2 });
    const toolMessages = model.calls[1]!.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(String(toolMessages[0]?.content)).toBe("- Flag style nits.");
    expect(JSON.parse(String(toolMessages[1]?.content)).byRule[0]).toMatchObject({ rule: "style-nit", rejected: 2, acceptance: 0 });
  });

  it("returns null when the model never saves", async () => {
    const styleStore = new StyleStore(testRedis(), `${uniquePrefix()}:`);
    const model = fakeModel().respond(new AIMessage("nothing to learn"));
    expect(await runStyleAnalyzer({ mode: "continual", model, repo, instructions: "x", styleStore, outcomes: [] })).toBeNull();
    expect(await styleStore.get(repo)).toBeNull();
  });
});
