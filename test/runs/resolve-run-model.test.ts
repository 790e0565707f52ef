import { ChatAnthropic } from "@langchain/anthropic";
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { ROOT } from "../helpers/paths.js";
import { ReplayChatModel } from "../../src/agent/model/replay-chat-model.js";
import type { ModelConfig } from "../../src/config/model-config.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { resolveRunModel } from "../../src/runs/resolve-run-model.js";
import { Profile, type TeamModels } from "../../src/store/settings-store.js";

const KEY: ModelConfig = { anthropicApiKey: "k" };

function resolve(o: { role?: "agent" | "reviewer"; profile?: object; team?: TeamModels; repo?: unknown; config?: ModelConfig; thread?: { modelId?: string; effort?: string } }) {
  return resolveRunModel({
    role: o.role ?? "agent",
    profile: Profile.parse(o.profile ?? {}),
    team: o.team ?? {},
    repoConfig: parseRepoConfig(o.repo ?? {}),
    config: o.config ?? KEY,
    ...(o.thread ? { thread: o.thread } : {}),
  });
}

describe("resolveRunModel: the precedence every run uses", () => {
  // thread > profile > team default (repo config for the role, then repo-wide, then the operator's team
  // setting) > deployment > built-in.
  it.each([
    [
      "thread beats everything",
      { thread: { modelId: "claude-opus-4-7" }, profile: { model: "claude-haiku-4-5" }, config: { ...KEY, model: "claude-sonnet-4-6" } },
      "anthropic:claude-opus-4-7",
      "thread",
    ],
    ["profile beats the repo and team", { profile: { model: "claude-opus-4-7" }, repo: { model: "claude-haiku-4-5" }, team: { agent: "claude-haiku-4-5" } }, "anthropic:claude-opus-4-7", "profile"],
    ["agent.model beats the repo-wide model", { repo: { model: "claude-haiku-4-5", agent: { model: "claude-opus-4-7" } } }, "anthropic:claude-opus-4-7", "team"],
    ["review.model is the reviewer's, not the agent's", { role: "reviewer" as const, repo: { model: "claude-haiku-4-5", review: { model: "claude-opus-4-7" } } }, "anthropic:claude-opus-4-7", "team"],
    ["the agent ignores review.model", { repo: { model: "claude-haiku-4-5", review: { model: "claude-opus-4-7" } } }, "anthropic:claude-haiku-4-5", "team"],
    ["the repo config beats the operator's team setting", { repo: { model: "claude-opus-4-7" }, team: { agent: "claude-haiku-4-5" } }, "anthropic:claude-opus-4-7", "team"],
    ["the team setting is per role", { role: "reviewer" as const, team: { agent: "claude-haiku-4-5", reviewer: "claude-opus-4-7" } }, "anthropic:claude-opus-4-7", "team"],
    ["the deployment model when no layer chooses", { config: { ...KEY, model: "claude-haiku-4-5" } }, "anthropic:claude-haiku-4-5", "deployment"],
    ["the built-in default last", {}, undefined, "builtin"],
  ])("%s", async (_name, input, modelId, source) => {
    const run = await resolve(input);
    expect(run.settings.source).toBe(source);
    if (modelId) expect(run.settings.modelId).toBe(modelId);
    expect(run.model).toBeInstanceOf(ChatAnthropic);
  });

  it("takes effort from the highest layer that sets one", async () => {
    const run = await resolve({ profile: { model: "claude-opus-4-7", effort: "low" }, config: { ...KEY, effort: "high" } });
    expect(run.settings).toMatchObject({ modelId: "anthropic:claude-opus-4-7", effort: "low", source: "profile" });
  });

  it("adds the model table's fallback when its provider is configured", async () => {
    const run = await resolve({ profile: { model: "claude-opus-4-7" } });
    expect(run.fallback).toBeInstanceOf(ChatAnthropic);
    expect(run.fallbackSkipped).toBeUndefined();
  });

  it("skips a fallback whose provider has no key and says why, but fails on a primary without one", async () => {
    const run = await resolve({ config: { ...KEY, model: "claude-opus-4-7", fallbackModel: "openai:gpt-5" } });
    expect(run.fallback).toBeUndefined();
    expect(run.fallbackSkipped).toMatch(/OPENAI_API_KEY/);
    await expect(resolve({ thread: { modelId: "claude-opus-4-7" }, config: {} })).rejects.toMatchObject({ code: "model_not_configured" });
  });

  it("replays when OPEN_SWE_MODEL says replay, whatever the profile says, with no fallback", async () => {
    const run = await resolve({ profile: { model: "claude-opus-4-7" }, config: { model: `replay:${join(ROOT, "test/agent/model/fixtures/two-turns.json")}` } });
    expect(run.settings.source).toBe("replay");
    expect(run.model).toBeInstanceOf(ReplayChatModel);
    expect(run.fallback).toBeUndefined();
  });
});
