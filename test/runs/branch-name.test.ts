import { describe, expect, it } from "vitest";
import { agentBranchName, isThreadAgentBranch } from "../../src/runs/branch-name.js";

const THREAD = "1b2c3d4e-0000-4000-8000-000000000001";

describe("isThreadAgentBranch", () => {
  it.each([
    ["the name agentBranchName gives the thread", agentBranchName(THREAD, "Fix the flaky login test, please!"), true],
    ["no task words: the bare prefix", agentBranchName(THREAD, "@open-swe"), true],
    ["the longest slug", agentBranchName(THREAD, `${"a".repeat(30)} ${"b".repeat(30)}`), true],
    ["the default branch", "main", false],
    ["another thread's agent branch", "open-swe/9f8e7d6c-fix-login", false],
    ["the prefix with more hex (another thread sharing 8 characters is the same prefix; more is not)", `open-swe/${THREAD.slice(0, 9)}`, false],
    ["a ref path under it", `open-swe/${THREAD.slice(0, 8)}-x/../../main`, false],
    ["upper case", `open-swe/${THREAD.slice(0, 8)}-Fix`, false],
    ["a double hyphen", `open-swe/${THREAD.slice(0, 8)}--fix`, false],
    ["a slug past 40 characters", `open-swe/${THREAD.slice(0, 8)}-${"a".repeat(41)}`, false],
  ])("%s", (_name, branch, want) => {
    expect(isThreadAgentBranch(THREAD, branch)).toBe(want);
  });
});
