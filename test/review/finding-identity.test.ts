import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { buildPullDiff, type PullDiff } from "../../src/review/diff.js";
import type { Finding, NewFinding } from "../../src/review/findings.js";
import { fileLinesKey, reconcileFindings, type FileLines } from "../../src/review/reconcile-findings.js";
import { applyHumanResolutions, type ReviewThread } from "../../src/review/resolve-threads.js";
import { findingOutcome } from "../../src/review/style/finding-outcomes.js";

// Every scenario is built from real git commits: the PR's diff is `git diff base head` per file, as
// GitHub's files API gives it, and the neighbours are read from `git show head:path`.

class Repo {
  readonly dir = mkdtempSync(join(tmpdir(), "open-swe-identity-"));
  constructor() {
    this.git("init", "-q", "-b", "main");
  }
  git(...args: string[]): string {
    return execFileSync("git", args, { cwd: this.dir, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@e", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@e" } });
  }
  /** Commits `files` on top of `parent` (or the current HEAD) and returns the sha. */
  commit(files: Record<string, string>, parent?: string): string {
    if (parent) this.git("checkout", "-q", "--detach", parent);
    for (const [path, text] of Object.entries(files)) writeFileSync(join(this.dir, path), text);
    this.git("add", "-A");
    this.git("commit", "-q", "--allow-empty", "-m", "c");
    return this.git("rev-parse", "HEAD").trim();
  }
  /** The PR's diff and the head's file texts, as a review pass sees them. */
  pr(base: string, head: string): { diff: PullDiff; files: FileLines } {
    const paths = this.git("diff", "--name-only", base, head).trim().split("\n").filter(Boolean);
    const diff = buildPullDiff(
      paths.map((filename) => {
        const d = this.git("diff", "--no-color", base, head, "--", filename);
        return { filename, patch: d.slice(d.indexOf("@@")).replace(/\n$/, "") };
      }),
    );
    return { diff, files: new Map(paths.map((p) => [fileLinesKey("RIGHT", p), this.git("show", `${head}:${p}`).split("\n")])) };
  }
}

const lines = (...ls: string[]) => `${ls.join("\n")}\n`;
const BUG = "  const name = user.profile.name;";
const base10 = Array.from({ length: 30 }, (_, i) => `const c${i + 1} = ${i + 1};`);
const at = (text: string, line: string): number => text.split("\n").indexOf(line) + 1;

function file(at0: number, insert: string[], body = base10): string {
  return lines(...body.slice(0, at0), ...insert, ...body.slice(at0));
}

const filing = (line: number): NewFinding => ({ path: "app.js", line, side: "RIGHT", severity: "high", title: "profile may be undefined", body: "b", rule: "null-deref" });

function pass(previous: Finding[], pr: { diff: PullDiff; files: FileLines }, headSha: string, filed: NewFinding[] = []) {
  return reconcileFindings({ previous, diff: pr.diff, headSha, filed, files: pr.files });
}

describe("a finding is keyed on what it points at (real git scenarios)", () => {
  let repo: Repo;
  let base: string;
  beforeEach(() => {
    repo = new Repo();
    base = repo.commit({ "app.js": lines(...base10) });
  });

  function firstFinding(head: string, text: string): Finding {
    const r = pass([], repo.pr(base, head), "h1", [filing(at(text, BUG))]);
    expect(r.added).toHaveLength(1);
    return r.added[0]!;
  }

  it("editing the line right after the flagged one leaves it open, unmoved, and not re-filable", () => {
    const t1 = file(10, ["function greet(user) {", BUG, "  return name;", "}"]);
    const h1 = repo.commit({ "app.js": t1 });
    const f = firstFinding(h1, t1);
    const t2 = file(10, ["function greet(user) {", BUG, "  return `hi ${name}`;", "}"]);
    const h2 = repo.commit({ "app.js": t2 });
    const r = pass([f], repo.pr(base, h2), "h2", [filing(at(t2, BUG))]);
    expect(r.resolved).toEqual([]);
    expect(r.unchanged).toEqual([expect.objectContaining({ id: f.id, line: f.line, status: "open", headSha: "h2" })]);
    expect(r.rejected).toEqual([expect.objectContaining({ code: "duplicate", existingId: f.id })]);
  });

  it("a force-push onto a base that changed the neighbouring line keeps it open", () => {
    // The flagged line sits right below c10; the new base changes c10 itself.
    const t1 = file(10, [BUG]);
    const h1 = repo.commit({ "app.js": t1 }, base);
    const f = firstFinding(h1, t1);
    expect(f.neighbours).toEqual(["const c10 = 10;", "const c11 = 11;"]);
    const changedBody = base10.map((l, i) => (i === 9 ? "const c10 = 'ten';" : l));
    const base2 = repo.commit({ "app.js": lines(...changedBody) }, base);
    const t2 = file(10, [BUG], changedBody);
    const h2 = repo.commit({ "app.js": t2 }, base2);
    const r = reconcileFindings({ previous: [f], ...repo.pr(base2, h2), headSha: "h2", filed: [] });
    expect(r.resolved).toEqual([]);
    expect(r.findings).toEqual([expect.objectContaining({ id: f.id, status: "open", line: at(t2, BUG) })]);
  });

  it("an edit 7 lines above (hunks merge, line numbers shift) moves it, never resolves it", () => {
    const t1 = file(20, ["function greet(user) {", BUG, "}"]);
    const h1 = repo.commit({ "app.js": t1 });
    const f = firstFinding(h1, t1);
    const body2 = [...base10.slice(0, 13), "const extra1 = 1;", "const extra2 = 2;", ...base10.slice(13)];
    const t2 = file(22, ["function greet(user) {", BUG, "}"], body2);
    expect(at(t2, BUG) - at(t2, "const extra1 = 1;")).toBeGreaterThanOrEqual(7);
    const h2 = repo.commit({ "app.js": t2 });
    const r = pass([f], repo.pr(base, h2), "h2");
    expect(r.resolved).toEqual([]);
    expect(r.moved).toEqual([expect.objectContaining({ finding: expect.objectContaining({ id: f.id, line: at(t2, BUG) }) })]);
  });

  it("two identical buggy windows are two findings; fixing one resolves exactly that one", () => {
    const win = ["function greet(user) {", BUG, "}"];
    const t1 = lines(...base10.slice(0, 5), ...win, ...base10.slice(5, 20), ...win, ...base10.slice(20));
    const h1 = repo.commit({ "app.js": t1 });
    const first = at(t1, BUG);
    const second = t1.split("\n").lastIndexOf(BUG) + 1;
    const r1 = pass([], repo.pr(base, h1), "h1", [filing(first), filing(second)]);
    expect(r1.added.map((f) => f.line)).toEqual([first, second]);
    expect(new Set(r1.added.map((f) => f.id)).size).toBe(2);
    const [a, b] = r1.added;

    const fixedWin = ["function greet(user) {", "  const name = user.profile?.name ?? 'guest';", "}"];
    const t2 = lines(...base10.slice(0, 5), ...fixedWin, ...base10.slice(5, 20), ...win, ...base10.slice(20));
    const h2 = repo.commit({ "app.js": t2 });
    const r2 = pass([a!, b!], repo.pr(base, h2), "h2", [filing(t2.split("\n").lastIndexOf(BUG) + 1)]);
    expect(r2.resolved).toEqual([expect.objectContaining({ id: a!.id, closedBy: "fix" })]);
    expect(r2.findings.find((f) => f.id === b!.id)).toMatchObject({ status: "open", line: second });
    expect(r2.rejected).toEqual([expect.objectContaining({ code: "duplicate", existingId: b!.id })]);
  });

  it("a closed finding cannot be filed again after its code moves; a dismissed one nowhere on the PR", () => {
    const t1 = file(10, ["function greet(user) {", BUG, "}"]);
    const h1 = repo.commit({ "app.js": t1 });
    const f = firstFinding(h1, t1);
    const t2 = file(3, ["// moved down"], t1.trimEnd().split("\n"));
    const h2 = repo.commit({ "app.js": t2 });
    const resolvedByHand = pass([{ ...f, status: "resolved" }], repo.pr(base, h2), "h2", [filing(at(t2, BUG))]);
    expect(resolvedByHand.rejected).toEqual([expect.objectContaining({ code: "previously_closed", existingId: f.id })]);
    // Dismissed: a second copy of the same line elsewhere in the PR is refused too.
    const t3 = lines(...t2.trimEnd().split("\n"), "function again(user) {", BUG, "}");
    const h3 = repo.commit({ "app.js": t3 });
    const copy = t3.split("\n").lastIndexOf(BUG) + 1;
    const dismissed = pass([{ ...f, status: "dismissed", closedBy: "human" }], repo.pr(base, h3), "h3", [filing(at(t3, BUG)), filing(copy)]);
    expect(dismissed.added).toEqual([]);
    expect(dismissed.rejected.map((r) => r.code)).toEqual(["previously_closed", "previously_closed"]);
  });

  it("a fix pushed while a person resolved the thread counts as accepted; resolved without a fix is dismissed", () => {
    const t1 = file(10, ["function greet(user) {", BUG, "}"]);
    const h1 = repo.commit({ "app.js": t1 });
    const f = { ...firstFinding(h1, t1), githubCommentId: 501 };
    const resolvedThread = [{ id: "T1", isResolved: true, firstCommentId: 501 }];

    const fixed = file(10, ["function greet(user) {", "  const name = user.profile?.name;", "}"]);
    const hFix = repo.commit({ "app.js": fixed });
    const withFix = pass(applyHumanResolutions([f], resolvedThread), repo.pr(base, hFix), "h2");
    expect(withFix.findings).toEqual([expect.objectContaining({ status: "resolved", closedBy: "fix", threadResolved: true })]);
    expect(findingOutcome(withFix.findings[0]!)).toBe("accepted");

    const hNoFix = repo.commit({ "app.js": file(10, ["function greet(user) {", BUG, "  // reviewed", "}"]) });
    const noFix = pass(applyHumanResolutions([f], resolvedThread), repo.pr(base, hNoFix), "h3");
    expect(noFix.findings).toEqual([expect.objectContaining({ status: "dismissed", closedBy: "human" })]);
    expect(findingOutcome(noFix.findings[0]!)).toBe("rejected");
  });
});

describe("dismissal by a person", () => {
  const f = {
    id: "f-1",
    fingerprint: "k",
    lineText: "x",
    path: "a.js",
    line: 3,
    side: "RIGHT",
    headSha: "h",
    severity: "high",
    title: "t",
    body: "b",
    rule: "r",
    status: "open",
    githubCommentId: 9,
  } as const satisfies Finding;
  const thread: ReviewThread = { id: "T", isResolved: false, firstCommentId: 9 };
  it.each<[string, ReviewThread, string]>([
    ["a 👎 on our comment", { ...thread, thumbsDown: ["carol"] }, "dismissed"],
    ["a 👎 from one of our bots", { ...thread, thumbsDown: ["open-swe[bot]"] }, "open"],
    ['a "won\'t fix" reply', { ...thread, replies: [{ author: "carol", body: "Won't fix: this path is internal." }] }, "dismissed"],
    ['a "not a bug" reply', { ...thread, replies: [{ author: "dave", body: "not a bug" }] }, "dismissed"],
    ["a reply that is a question", { ...thread, replies: [{ author: "dave", body: "is this really a bug?" }] }, "open"],
    ["a dismissing phrase from our bot", { ...thread, replies: [{ author: "open-swe[bot]", body: "won't fix" }] }, "open"],
    ["nothing", thread, "open"],
  ])("%s → %s", (_name, t, status) => {
    const [out] = applyHumanResolutions([f], [t], ["open-swe[bot]"]);
    expect(out!.status).toBe(status);
    if (status === "dismissed") {
      expect(out!.closedBy).toBe("human");
      expect(findingOutcome(out!)).toBe("rejected");
    }
  });
});
