import { describe, expect, it } from "vitest";
import { buildPullDiff, findingKey } from "../../src/review/diff.js";
import type { Finding, NewFinding } from "../../src/review/findings.js";
import { fileLinesKey, reconcileFindings, type RejectCode } from "../../src/review/reconcile-findings.js";

// Push 1: the PR adds a risky line at 11 of src/app.ts.
const push1 = buildPullDiff([
  {
    filename: "src/app.ts",
    patch: "@@ -10,3 +10,4 @@ export function handler(req) {\n   const user = req.user;\n+  const name = user.profile.name;\n   log(user);\n   return ok();",
  },
]);
// Push 2: two lines inserted above, the risky line now at 13; context unchanged.
const push2Moved = buildPullDiff([
  {
    filename: "src/app.ts",
    patch:
      "@@ -8,5 +8,8 @@\n import { log } from './log.js';\n+import { ok } from './ok.js';\n+\n export function handler(req) {\n   const user = req.user;\n+  const name = user.profile.name;\n   log(user);\n   return ok();",
  },
]);
// Push 2': the risky line is fixed.
const push2Fixed = buildPullDiff([
  {
    filename: "src/app.ts",
    patch: "@@ -10,3 +10,4 @@ export function handler(req) {\n   const user = req.user;\n+  const name = user.profile?.name ?? 'anon';\n   log(user);\n   return ok();",
  },
]);

const filed: NewFinding = { path: "src/app.ts", line: 11, side: "RIGHT", severity: "high", title: "profile may be undefined", body: "`user.profile` is optional.", rule: "null-deref" };

function firstPass(): Finding {
  const r = reconcileFindings({ previous: [], diff: push1, headSha: "sha1", filed: [filed] });
  expect(r.added).toHaveLength(1);
  return r.added[0]!;
}

describe("reconcileFindings", () => {
  it("accepts a finding on a changed line, with a deterministic id and fingerprint", () => {
    const f = firstPass();
    expect(f).toMatchObject({ path: "src/app.ts", line: 11, side: "RIGHT", status: "open", headSha: "sha1", rule: "null-deref" });
    expect(f.fingerprint).toBe(findingKey("src/app.ts", "RIGHT", "null-deref", "const name = user.profile.name;"));
    expect(f.lineText).toBe("const name = user.profile.name;");
    expect(reconcileFindings({ previous: [], diff: push1, headSha: "sha1", filed: [filed] }).added[0]!.id).toBe(f.id);
  });

  type Row = {
    name: string;
    previous: (f: Finding) => Finding[];
    diff: typeof push1;
    filed: NewFinding[];
    expect: Partial<Record<"added" | "moved" | "unchanged" | "resolved" | "rejected", number>>;
    check?: (r: ReturnType<typeof reconcileFindings>, f: Finding) => void;
  };
  const rows: Row[] = [
    {
      name: "same head, model files it again → duplicate, nothing re-posted",
      previous: (f) => [f],
      diff: push1,
      filed: [filed],
      expect: { unchanged: 1, rejected: 1, added: 0 },
      check: (r, f) => expect(r.rejected[0]).toMatchObject({ code: "duplicate", existingId: f.id }),
    },
    {
      name: "code moved → re-anchored at the new line, same id",
      previous: (f) => [f],
      diff: push2Moved,
      filed: [],
      expect: { moved: 1, unchanged: 0, resolved: 0 },
      check: (r, f) => {
        expect(r.moved[0]!.finding).toMatchObject({ id: f.id, line: 13, headSha: "sha2", status: "open" });
        expect(r.moved[0]!.from).toEqual({ path: "src/app.ts", line: 11, side: "RIGHT" });
      },
    },
    {
      name: "code moved and the model files it at the new line → duplicate of the moved finding",
      previous: (f) => [f],
      diff: push2Moved,
      filed: [{ ...filed, line: 13 }],
      expect: { moved: 1, rejected: 1, added: 0 },
    },
    {
      name: "code fixed → resolved",
      previous: (f) => [f],
      diff: push2Fixed,
      filed: [],
      expect: { resolved: 1, moved: 0, unchanged: 0 },
      check: (r, f) => expect(r.findings).toEqual([{ ...f, status: "resolved", closedBy: "fix" }]),
    },
    {
      name: "human dismissed → kept dismissed and never re-raised",
      previous: (f) => [{ ...f, status: "dismissed" }],
      diff: push1,
      filed: [filed],
      expect: { rejected: 1, added: 0, unchanged: 0 },
      check: (r) => {
        expect(r.rejected[0]!.code).toBe("previously_closed");
        expect(r.findings[0]!.status).toBe("dismissed");
      },
    },
    {
      name: "human resolved → not re-raised after the code moves either",
      previous: (f) => [{ ...f, status: "resolved" }],
      diff: push2Moved,
      filed: [{ ...filed, line: 13 }],
      expect: { rejected: 1, added: 0, moved: 0, resolved: 0 },
    },
    {
      name: "a different rule on the same line is a different finding",
      previous: (f) => [f],
      diff: push1,
      filed: [{ ...filed, rule: "unused-variable", title: "name is unused" }],
      expect: { unchanged: 1, added: 1 },
    },
    {
      name: "two identical filings in one pass → one added, one duplicate",
      previous: () => [],
      diff: push1,
      filed: [filed, { ...filed, title: "again" }],
      expect: { added: 1, rejected: 1 },
    },
  ];

  it.each(rows)("$name", (row) => {
    const f = firstPass();
    const r = reconcileFindings({ previous: row.previous(f), diff: row.diff, headSha: "sha2", filed: row.filed });
    for (const [k, n] of Object.entries(row.expect)) expect(r[k as keyof typeof row.expect], k).toHaveLength(n);
    expect(r.findings.length).toBe(r.added.length + r.moved.length + r.unchanged.length + r.resolved.length + row.previous(f).filter((p) => p.status !== "open").length);
    row.check?.(r, f);
  });

  const rejections: Array<[string, Partial<NewFinding>, RejectCode]> = [
    ["a file the PR does not touch", { path: "src/other.ts" }, "file_not_in_diff"],
    ["a line outside every hunk", { line: 40 }, "unchanged_line"],
    ["a context line", { line: 10 }, "context_line"],
    ["a LEFT line outside the hunk", { side: "LEFT", line: 13 }, "unchanged_line"],
    ["the LEFT side of a context line", { side: "LEFT", line: 11 }, "context_line"],
  ];
  it.each(rejections)("rejects a finding on %s with a reason", (_name, patch, code) => {
    const r = reconcileFindings({ previous: [], diff: push1, headSha: "sha1", filed: [{ ...filed, ...patch }] });
    expect(r.added).toEqual([]);
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0]!.code).toBe(code);
    expect(r.rejected[0]!.reason.length).toBeGreaterThan(20);
  });

  it("re-anchors into a renamed file and re-keys the fingerprint to the new path", () => {
    const f = firstPass();
    const renamed = buildPullDiff([
      {
        filename: "src/server.ts",
        previous_filename: "src/app.ts",
        status: "renamed",
        patch: "@@ -10,3 +10,4 @@\n   const user = req.user;\n+  const name = user.profile.name;\n   log(user);\n   return ok();",
      },
    ]);
    const r = reconcileFindings({ previous: [f], diff: renamed, headSha: "sha2", filed: [] });
    expect(r.moved).toHaveLength(1);
    const moved = r.moved[0]!.finding;
    expect(moved.path).toBe("src/server.ts");
    expect(moved.fingerprint).toBe(findingKey("src/server.ts", "RIGHT", "null-deref", "const name = user.profile.name;"));
    const again = reconcileFindings({ previous: [moved], diff: renamed, headSha: "sha3", filed: [] });
    expect(again.unchanged).toHaveLength(1);
  });
});

describe("reconcileFindings: keys, neighbours, closed and legacy findings", () => {
  const BUG = "const name = user.profile.name;";
  // Two copies of the flagged line, at 2 and 6 of the head, with different neighbours.
  const twoCopies = buildPullDiff([{ filename: "a.js", patch: `@@ -0,0 +1,7 @@\n+function a() {\n+  ${BUG}\n+}\n+\n+function b() {\n+  ${BUG}\n+}` }]);
  const fileText = ["function a() {", `  ${BUG}`, "}", "", "function b() {", `  ${BUG}`, "}"];
  const files = new Map([[fileLinesKey("RIGHT", "a.js"), fileText]]);
  const on = (line: number, rule = "null-deref"): NewFinding => ({ path: "a.js", line, side: "RIGHT", severity: "high", title: "t", body: "b", rule });
  const filedAt = (line: number) => reconcileFindings({ previous: [], diff: twoCopies, headSha: "h1", filed: [on(line)], files }).added[0]!;

  it("files neighbours read from the file text", () => {
    expect(filedAt(6)).toMatchObject({ lineText: BUG, neighbours: ["function b() {", "}"] });
    expect(fileLinesKey("RIGHT", "a.js")).toBe("RIGHT:a.js");
    expect(fileLinesKey("LEFT", "a.js")).not.toBe(fileLinesKey("RIGHT", "a.js"));
  });

  it("neighbours beat distance when several lines share the text", () => {
    // Stored at line 3 (nearer to 2) but with b()'s neighbours: it is the copy at 6.
    const f = { ...filedAt(6), line: 3 };
    const r = reconcileFindings({ previous: [f], diff: twoCopies, headSha: "h2", filed: [], files });
    expect(r.moved).toEqual([expect.objectContaining({ finding: expect.objectContaining({ id: f.id, line: 6, neighbours: ["function b() {", "}"] }) })]);
    expect(r.unchanged).toEqual([]);
  });

  it("without file texts, distance decides; an exact stay is 'unchanged', anything else 'moved'", () => {
    const f = filedAt(2);
    const stay = reconcileFindings({ previous: [f], diff: twoCopies, headSha: "h2", filed: [] });
    expect(stay.unchanged).toEqual([expect.objectContaining({ id: f.id, line: 2, headSha: "h2" })]);
    expect(stay.moved).toEqual([]);
    const shifted = reconcileFindings({ previous: [{ ...f, line: 5, neighbours: undefined }], diff: twoCopies, headSha: "h2", filed: [] });
    expect(shifted.moved).toEqual([expect.objectContaining({ finding: expect.objectContaining({ line: 6 }), from: { path: "a.js", line: 5, side: "RIGHT" } })]);
  });

  it("a rule differing only in case or spaces is the same finding", () => {
    const f = filedAt(2);
    const r = reconcileFindings({ previous: [f], diff: twoCopies, headSha: "h2", filed: [on(2, " Null-Deref ")], files });
    expect(r.rejected).toEqual([expect.objectContaining({ code: "duplicate", existingId: f.id })]);
  });

  it("resolved by a fix blocks only its own line; resolved by a person or dismissed blocks the text anywhere", () => {
    const f = filedAt(2);
    const byFix = reconcileFindings({ previous: [{ ...f, status: "resolved", closedBy: "fix" }], diff: twoCopies, headSha: "h2", filed: [on(2), on(6)], files });
    expect(byFix.rejected.map((x) => x.code)).toEqual(["previously_closed"]);
    expect(byFix.added.map((x) => x.line)).toEqual([6]);
    for (const closed of [{ status: "resolved", closedBy: "human" }, { status: "dismissed", closedBy: "human" }, { status: "dismissed" }] as const) {
      const r = reconcileFindings({ previous: [{ ...f, ...closed }], diff: twoCopies, headSha: "h2", filed: [on(2), on(6)], files });
      expect(r.added, JSON.stringify(closed)).toEqual([]);
      expect(r.rejected.map((x) => x.code)).toEqual(["previously_closed", "previously_closed"]);
    }
  });

  it("closed findings are stored untouched; an open one of the old format is kept open, never resolved", () => {
    const f = filedAt(2);
    const closed = { ...f, status: "dismissed" as const, closedBy: "human" as const };
    const { lineText: _l, neighbours: _n, ...legacy } = { ...f, id: "f-legacy", fingerprint: "old-context-hash", line: 40 };
    const gone = buildPullDiff([{ filename: "a.js", patch: "@@ -0,0 +1,1 @@\n+const other = 1;" }]);
    const r = reconcileFindings({ previous: [closed, legacy], diff: gone, headSha: "h9", filed: [] });
    expect(r.findings).toEqual([closed, { ...legacy, headSha: "h9" }]);
    expect(r.unchanged).toEqual([{ ...legacy, headSha: "h9" }]);
    expect(r.resolved).toEqual([]);
    expect(r.dismissed).toEqual([]);
  });

  it("an open finding and a closed one on identical lines: the open one keeps its line", () => {
    const a = filedAt(2);
    const b = { ...filedAt(6), neighbours: undefined };
    const aClosed = { ...a, neighbours: undefined, status: "resolved" as const, closedBy: "fix" as const, line: 4 };
    const bOpen = { ...b, line: 4 };
    // Both stored at 4, equally far from 2 and 6: open goes first, so it is never resolved for want of a line.
    const oneCopy = buildPullDiff([{ filename: "a.js", patch: `@@ -0,0 +1,1 @@\n+${BUG}` }]);
    const r = reconcileFindings({ previous: [aClosed, bOpen], diff: oneCopy, headSha: "h3", filed: [] });
    expect(r.resolved).toEqual([]);
    expect(r.findings.find((x) => x.id === b.id)).toMatchObject({ status: "open", line: 1 });
  });
});
