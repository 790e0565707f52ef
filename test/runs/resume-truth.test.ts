import { describe, expect, it } from "vitest";
import { lostWorkspaceReplyNote, lostWorkspaceResumeNote, resumedRunFacts } from "../../src/runs/resume-truth.js";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);

describe("lostWorkspaceResumeNote (pure)", () => {
  it.each([
    [undefined, "Nothing had been pushed yet, so the workspace holds `open-swe/x` as it was cut from `main`."],
    [SHA_A, "The workspace was restored from the pushed branch `open-swe/x` at aaaaaaaaaaaa: only what you pushed survived."],
  ])("pushed %s", (pushedSha, holds) => {
    const note = lostWorkspaceResumeNote({ branch: "open-swe/x", baseBranch: "main", pushedSha });
    expect(note).toContain("uncommitted changes");
    expect(note).toContain(holds);
  });
});

describe("resumedRunFacts (pure): what was pushed after the resume, never the model's words", () => {
  it.each([
    [{ pushedAtStart: undefined, pushedAtEnd: undefined, prUrl: undefined }, "Nothing was pushed after the resume: nothing was pushed at all, so `b` has none of the changes."],
    [
      { pushedAtStart: SHA_A, pushedAtEnd: SHA_A, prUrl: "https://github.com/o/r/pull/1" },
      "Nothing was pushed after the resume: `b` has only what was pushed before the worker stopped (aaaaaaaaaaaa).",
    ],
    [{ pushedAtStart: SHA_A, pushedAtEnd: SHA_B, prUrl: "https://github.com/o/r/pull/1" }, "After the resume it pushed `b` to bbbbbbbbbbbb (https://github.com/o/r/pull/1)."],
    [{ pushedAtStart: undefined, pushedAtEnd: SHA_B, prUrl: undefined }, "After the resume it pushed `b` to bbbbbbbbbbbb."],
  ])("%j", (o, expected) => {
    const text = resumedRunFacts({ branch: "b", ...o });
    expect(text.startsWith("Note: this run was resumed in a new sandbox after its worker stopped")).toBe(true);
    expect(text).toContain(expected);
  });
});

describe("lostWorkspaceReplyNote (pure): why the thread's workspace was lost", () => {
  it.each([
    ["gone", "previous sandbox was gone; uncommitted work from the earlier run was lost."],
    [undefined, "previous sandbox was gone; uncommitted work from the earlier run was lost."],
    ["read_only", "had a read-only filesystem (EROFS: its disk failed), so it was replaced with a new one; uncommitted work from the earlier run was lost."],
  ] as const)("%s", (reason, expected) => {
    expect(lostWorkspaceReplyNote(reason)).toContain(expected);
  });
});
