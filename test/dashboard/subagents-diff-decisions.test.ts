import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { diffSize, readPushedDiff, tooLarge } from "../../src/dashboard/pushed-diff.js";
import { matchSubagents, taskCalls } from "../../src/dashboard/subagents.js";
import { pushedDiffView } from "../../src/dashboard/views/diff-view.js";
import { ensureMirror } from "../../src/sandbox/workspace/mirror.js";
import { makeBareRemote } from "../helpers/git-remote.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd, encoding: "utf8" });

/** A mirror of octo/hello whose remote has branch `work` with `files` committed on main; returns the mirror root and work's sha. */
async function mirrorWith(files: Record<string, string>): Promise<{ root: string; sha: string }> {
  const remote = makeBareRemote("octo", "hello");
  const work = mkdtempSync(join(tmpdir(), "diff-work-"));
  git(work, "clone", "-q", remote.bare, ".");
  git(work, "checkout", "-q", "-b", "work");
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(work, p, ".."), { recursive: true });
    writeFileSync(join(work, p), c);
  }
  git(work, "add", "-A");
  git(work, "commit", "-qm", "work");
  git(work, "push", "-q", "origin", "work");
  const root = mkdtempSync(join(tmpdir(), "diff-mirror-"));
  await ensureMirror({ mirrorRoot: root, repo: "octo/hello", remoteUrl: remote.bare });
  return { root, sha: git(work, "rev-parse", "HEAD").trim() };
}

describe("the diff a run pushed, from the host mirror", () => {
  it.each([
    ["", { files: 0, changedLines: 0 }],
    ["3\t1\ta.ts\n", { files: 1, changedLines: 4 }],
    ["3\t1\ta.ts\n-\t-\tlogo.png\n10\t0\tb.ts\n", { files: 3, changedLines: 14 }],
  ])("diffSize(%j)", (numstat, size) => expect(diffSize(numstat)).toEqual(size));

  it.each([
    [{ files: 2, changedLines: 10 }, false],
    [{ files: 3, changedLines: 10 }, true],
    [{ files: 1, changedLines: 11 }, true],
  ])("tooLarge(%j) under 2 files / 10 lines: %s", (size, large) => expect(tooLarge(size, { files: 2, changedLines: 10, bytes: 1_000 })).toBe(large));

  it("renders base…head with diff2html, escaped; past the cap says how many files; a commit the mirror lacks says so", async () => {
    const { root, sha } = await mirrorWith({ "src/a.ts": "export const a = '<script>1</script>';\n", "src/b.ts": "b\n", "src/c.ts": "c\n" });
    const shown = await readPushedDiff(root, "octo/hello", sha);
    expect(shown).toMatchObject({ kind: "shown", sha, files: 3 });
    const page = String(pushedDiffView(shown));
    expect(page).toContain("src/a.ts");
    expect(page).toContain("&lt;script&gt;");
    expect(page).not.toContain("<script>1");
    expect(page).toContain('class="d2h-file-diff" tabindex="0"');

    const large = await readPushedDiff(root, "octo/hello", sha, { files: 2, changedLines: 5_000, bytes: 1_000_000 });
    expect(large).toMatchObject({ kind: "too_large", files: 3, changedLines: 3 });
    expect(String(pushedDiffView(large))).toContain("Diff too large to show: 3 files, 3 lines changed.");
    expect(String(pushedDiffView(large))).not.toContain("d2h-");

    expect(await readPushedDiff(root, "octo/hello", "f".repeat(40))).toEqual({ kind: "missing", sha: "f".repeat(40) });
    expect(await readPushedDiff(root, "octo/absent", sha)).toEqual({ kind: "missing", sha });
    expect(await readPushedDiff(root, "octo/hello", undefined)).toEqual({ kind: "none" });
    // A commit already on the default branch (the run's branch was merged): said, not an empty diff.
    const onMain = execFileSync("git", ["-C", join(root, "mirrors", "octo__hello.git"), "rev-parse", "main"], { encoding: "utf8" }).trim();
    const merged = await readPushedDiff(root, "octo/hello", onMain);
    expect(merged).toEqual({ kind: "merged", sha: onMain });
    expect(String(pushedDiffView(merged))).toContain("is on the default branch now");
    expect(String(pushedDiffView({ kind: "none" }))).toBe("");
  });
});

describe("each task call with the subagent conversation that answered it", () => {
  const call = (description: string, subagent_type?: string) =>
    new AIMessage({ content: "", tool_calls: [{ id: description, name: "task", args: { description, ...(subagent_type ? { subagent_type } : {}) } }] });
  const sub = (description: string, answer: string) => [new HumanMessage(description), new AIMessage(answer)];

  it("matches by the task's description, in the parent's order, leaving out what no call asked for", () => {
    const parent = [new HumanMessage("go"), call("check A", "checker"), new ToolMessage({ content: "A ok", tool_call_id: "check A", name: "task" }), call("check B")];
    expect(taskCalls(parent)).toEqual([
      { agent: "checker", description: "check A" },
      { agent: "general-purpose", description: "check B" },
    ]);
    const runs = matchSubagents(taskCalls(parent), [sub("check B", "B ok"), sub("from another thread", "x"), sub("check A", "A ok")]);
    expect(runs.map((r) => [r.agent, r.description, r.messages.map((m) => m.text)])).toEqual([
      ["checker", "check A", ["check A", "A ok"]],
      ["general-purpose", "check B", ["check B", "B ok"]],
    ]);
  });

  it("a forked subagent's conversation starts at its task, not at the parent's messages it inherited", () => {
    const forked = [new HumanMessage("go"), new AIMessage("parent's turn"), new HumanMessage("You are a fork. check A"), new AIMessage("A ok")];
    expect(matchSubagents([{ agent: "general-purpose", description: "check A" }], [forked])[0]!.messages.map((m) => m.text)).toEqual(["You are a fork. check A", "A ok"]);
  });

  it("a call whose conversation is gone is left out", () => {
    expect(matchSubagents([{ agent: "general-purpose", description: "check A" }], [])).toEqual([]);
  });
});
