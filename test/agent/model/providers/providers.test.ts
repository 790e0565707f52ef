import { describe, expect, it } from "vitest";
import { MODEL_PROVIDERS } from "../../../../src/agent/model/providers/registry.js";
import { PROVIDERS } from "../../../../src/config/model-table.js";
import { describeModelProviderConformance } from "./conformance.js";
import { anthropicFixture, azureFixture, bedrockFixture, geminiFixture, openaiFixture, vertexFixture } from "./fixtures.js";

const FIXTURES = [anthropicFixture, openaiFixture, bedrockFixture, azureFixture, vertexFixture, geminiFixture];

describe("the model provider registry", () => {
  it("has one member per provider id, filed under its own id, and every vendor provider runs the conformance suite", () => {
    expect([...MODEL_PROVIDERS.keys()].sort()).toEqual([...PROVIDERS].sort());
    for (const [id, provider] of MODEL_PROVIDERS) expect(provider.id).toBe(id);
    // The replay provider calls no vendor: test/agent/model/replay-chat-model.test.ts drives it.
    expect(FIXTURES.map((f) => f.provider).sort()).toEqual(PROVIDERS.filter((p) => p !== "replay").sort());
  });
});

for (const fixture of FIXTURES) describeModelProviderConformance(fixture);
