import { describe, expect, it } from "vitest";
import { sourceThreadId } from "../../src/threads/thread-repo.js";
import { threadId } from "../../src/shared/thread-id.js";

const KEY = "slack:T1:C1:1764590000.000100";
const legacy = threadId({ kind: "raw", key: KEY });
const perRepo = (repo: string) => threadId({ kind: "source", key: KEY, repo });

describe("sourceThreadId: the conversation and the repository", () => {
  it.each([
    ["a new conversation", "octo/a", null, perRepo("octo/a")],
    ["the repository a pre-upgrade conversation recorded", "octo/a", "octo/a", legacy],
    ["the same, any case", "Octo/A", "octo/a", legacy],
    ["another repository in a pre-upgrade conversation", "octo/b", "octo/a", perRepo("octo/b")],
  ] as const)("%s", (_, repo, legacyRepo, want) => {
    expect(sourceThreadId(KEY, repo, legacyRepo)).toBe(want);
  });

  it("two repositories of one conversation never share a thread", () => {
    expect(perRepo("octo/a")).not.toBe(perRepo("octo/b"));
    expect(perRepo("octo/a")).toBe(perRepo("OCTO/A"));
    expect(perRepo("octo/a")).not.toBe(legacy);
  });
});
