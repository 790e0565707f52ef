import { describe, expect, it } from "vitest";
import { allowedThreadModels, chooseThreadModel } from "../../src/agent/model/thread-model.js";

describe("chooseThreadModel", () => {
  const all = allowedThreadModels([]);
  it.each<[string, readonly string[], string | null]>([
    ["claude-opus-4-8", all, "anthropic:claude-opus-4-8"],
    ["anthropic:claude-sonnet-4-6", all, "anthropic:claude-sonnet-4-6"],
    ["gpt-5", all, "openai:gpt-5"],
    ["gpt-9000", all, null],
    ["claude-opus-4-8", allowedThreadModels(["claude-sonnet-4-6", "claude-haiku-4-5"]), null],
    ["claude-haiku-4-5", allowedThreadModels(["claude-sonnet-4-6", "claude-haiku-4-5"]), "anthropic:claude-haiku-4-5"],
    ["replay:/tmp/x.json", all, null],
  ])("%s", (requested, allowed, want) => {
    const got = chooseThreadModel(requested, allowed);
    if (want) expect(got).toEqual({ ok: true, modelId: want });
    else expect(got).toMatchObject({ ok: false, reply: expect.stringContaining(`\`${requested}\``) });
  });

  it("a refusal lists exactly the allowed models", () => {
    const got = chooseThreadModel("claude-opus-4-8", allowedThreadModels(["claude-sonnet-4-6", "openai:gpt-5"]));
    expect(got).toEqual({ ok: false, reply: "I can't use the model `claude-opus-4-8` here: it is not one this installation allows. Ask again with one of: `claude-sonnet-4-6`, `openai:gpt-5`." });
  });
});
