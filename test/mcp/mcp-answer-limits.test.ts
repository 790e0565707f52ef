import { describe, expect, it } from "vitest";
import { jsonTooDeep } from "../../src/mcp/mcp-answer-limits.js";

describe("jsonTooDeep: nesting counted before a parse", () => {
  it.each([
    ["{}", 1, false],
    ["[[]]", 1, true],
    ["[[]]", 2, false],
    ['{"a":{"b":[1,2,{"c":3}]}}', 4, false],
    ['{"a":{"b":[1,2,{"c":3}]}}', 3, true],
    ['{"text":"[[[[[[[[[["}', 1, false],
    ['{"text":"\\"[[[[["}', 1, false],
    ['["\\\\", [[[]]]]', 3, true],
    ["[".repeat(65), 64, true],
    ["[".repeat(64) + "]".repeat(64), 64, false],
    ["not json at all", 0, false],
  ])("%j with at most %i levels → %s", (text, max, deep) => {
    expect(jsonTooDeep(text, max)).toBe(deep);
  });
});
