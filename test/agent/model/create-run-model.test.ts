import { ChatAnthropic } from "@langchain/anthropic";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/paths.js";
import { createRunModel } from "../../../src/agent/model/create-run-model.js";
import { ReplayChatModel } from "../../../src/agent/model/replay-chat-model.js";

describe("createRunModel", () => {
  it("resolves by precedence with the deployment model below the team default, and adds the table's fallback", async () => {
    const run = await createRunModel({ profile: { modelId: "claude-opus-4-7", effort: "low" } }, { anthropicApiKey: "k", model: "claude-haiku-4-5" });
    expect(run.settings).toMatchObject({ modelId: "anthropic:claude-opus-4-7", effort: "low", source: "profile" });
    expect(run.model).toBeInstanceOf(ChatAnthropic);
    expect(run.fallback?.settings.modelId).toBe("anthropic:claude-sonnet-4-6");
  });

  it("uses the deployment model when no layer chooses", async () => {
    const run = await createRunModel({}, { anthropicApiKey: "k", model: "claude-haiku-4-5", effort: "low" });
    expect(run.settings).toMatchObject({ modelId: "anthropic:claude-haiku-4-5", effort: "low", source: "deployment" });
    expect(run.fallback).toBeUndefined();
  });

  it("skips a fallback whose provider has no key, but fails on a primary without one", async () => {
    const run = await createRunModel({}, { anthropicApiKey: "k", model: "claude-opus-4-7", fallbackModel: "openai:gpt-5" });
    expect(run.fallback).toBeUndefined();
    expect(run.fallbackSkipped).toMatch(/OPENAI_API_KEY/);
    await expect(createRunModel({ thread: { modelId: "claude-opus-4-7" } }, {})).rejects.toMatchObject({ code: "model_not_configured" });
  });

  it("replays when OPEN_SWE_MODEL says replay, whatever the profile says, with no fallback", async () => {
    const run = await createRunModel({ profile: { modelId: "claude-opus-4-7" } }, { model: `replay:${join(ROOT, "test/agent/model/fixtures/two-turns.json")}` });
    expect(run.settings.source).toBe("replay");
    expect(run.model).toBeInstanceOf(ReplayChatModel);
    expect(run.fallback).toBeUndefined();
  });
});
