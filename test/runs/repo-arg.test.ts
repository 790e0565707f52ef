import { describe, expect, it } from "vitest";
import { checkModelId } from "../../src/config/check-model-id.js";
import { isRepoName } from "../../src/shared/repo-name.js";
import { classifyRepoArg } from "../../src/runs/repo-arg.js";

describe("repository names and model ids an operator types", () => {
  it.each([
    ["octo/hello", true],
    ["Octo-Org/hello.world_2", true],
    ["../etc", false],
    ["octo/..", false],
    ["octo/.", false],
    ["-octo/x", false],
    ["a/b/c", false],
    ["octo", false],
  ])("isRepoName(%s) = %s", (s, ok) => expect(isRepoName(s)).toBe(ok));

  it.each<[string, string[], unknown]>([
    ["/home/me/app", ["/home/me/app"], { kind: "path", path: "/home/me/app" }],
    ["/home/me/gone", [], { kind: "error", message: "no such directory: /home/me/gone" }],
    ["./app", [], { kind: "error", message: "no such directory: ./app" }],
    ["~/app", [], { kind: "error", message: "no such directory: ~/app" }],
    ["octo/hello", [], { kind: "remote", repo: "octo/hello" }],
    ["octo/hello", ["octo/hello"], { kind: "path", path: "octo/hello" }],
  ])("--repo %s (existing: %j) → %j", (arg, existing, expected) => {
    expect(classifyRepoArg(arg, (p) => existing.includes(p))).toEqual(expected);
  });

  it.each([
    ["claude-sonnet-4-5", null],
    ["anthropic:claude-sonnet-4-5-20250929", null],
    ["openai:my-local-llm", null],
    ["gpt-5", null],
    ["openai:gpt-4o", null],
    ["gpt-4o", /^unknown model "gpt-4o": one of .*, or openai:<name> for an OpenAI-compatible endpoint$/],
    ["openai:", /^unknown model "openai:"/],
    ["claude-sonet-4-5", /^unknown model "claude-sonet-4-5": one of .*claude-sonnet-4-5.*, or openai:<name>/],
    ["replay:/tmp/x.json", /set it as OPEN_SWE_MODEL/],
  ])("checkModelId(%s)", (id, expected) => {
    const r = checkModelId(id);
    if (expected === null) expect(r).toBeNull();
    else expect(r).toMatch(expected);
  });
});
