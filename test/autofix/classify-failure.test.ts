import { describe, expect, it } from "vitest";
import { parseClassification } from "../../src/autofix/classify-failure.js";

describe("parseClassification (pure)", () => {
  it.each<[string, string, { classification: string; reason?: string; evidence?: string } | RegExp]>([
    ["bare JSON", '{"classification":"fix","reason":"a lint error","evidence":"a.ts:1 no-unused-vars"}', { classification: "fix", reason: "a lint error", evidence: "a.ts:1 no-unused-vars" }],
    ["flaky", '{"classification":"flaky","reason":"the runner timed out","evidence":"Error: ETIMEDOUT"}', { classification: "flaky" }],
    ["no_change", '{"classification":"no_change","reason":"a missing secret","evidence":"NPM_TOKEN is not set"}', { classification: "no_change" }],
    ["in a json fence with prose around it", 'Here it is:\n```json\n{"classification":"flaky","reason":"network","evidence":"ECONNRESET"}\n```\nDone.', { classification: "flaky", reason: "network" }],
    ["evidence may be left out", '{"classification":"fix","reason":"types"}', { classification: "fix", evidence: "" }],
    ["prose before the object", 'I think {"classification":"no_change","reason":"permissions"}', { classification: "no_change" }],
    ["no JSON at all", "It is probably flaky.", /no JSON object/],
    ["empty answer", "", /no JSON object/],
    ["broken JSON", '{"classification": "fix", reason: oops}', /does not parse/],
    ["an unknown class", '{"classification":"retry","reason":"x"}', /classification/],
    ["the class misspelt in case", '{"classification":"FIX","reason":"x"}', /classification/],
    ["no reason", '{"classification":"fix"}', /reason/],
    ["an empty reason", '{"classification":"fix","reason":"  "}', /reason/],
    ["an extra key (the model was steered)", '{"classification":"fix","reason":"x","run":"rm -rf /"}', /run|Unrecognized/i],
    ["an array, not an object", '[{"classification":"fix","reason":"x"}]', /expected object|does not parse/],
    ["a reason too long", JSON.stringify({ classification: "fix", reason: "x".repeat(601) }), /reason/],
  ])("%s", (_n, text, want) => {
    const got = parseClassification(text);
    if (want instanceof RegExp) {
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error).toMatch(want);
    } else {
      expect(got.ok).toBe(true);
      if (got.ok) expect(got.value).toMatchObject(want);
    }
  });
});
