import { createHash } from "node:crypto";
import { candidatesFor, findingKey, isChangedLine, isCommentable, lineTextAt, neighboursIn, type Anchor, type Neighbours, type PullDiff, type Side } from "./diff.js";
import type { Finding, NewFinding } from "./findings.js";

export type RejectCode = "file_not_in_diff" | "unchanged_line" | "context_line" | "duplicate" | "previously_closed";

export interface RejectedFinding {
  filed: NewFinding;
  code: RejectCode;
  reason: string;
  /** The existing finding it collides with, for duplicates and closed ones. */
  existingId?: string;
}

export interface ReconcileResult {
  /** The whole evolved set, to store. */
  findings: Finding[];
  /** Newly filed and accepted: these get inline comments. */
  added: Finding[];
  /** Still open, code moved: re-anchored, not re-posted. */
  moved: Array<{ finding: Finding; from: Anchor }>;
  /** Still open at the same place: not re-posted. */
  unchanged: Finding[];
  /** Open before, flagged line gone at the new head: resolved by the fix (even if a person also resolved the thread). */
  resolved: Finding[];
  /** Open before, its thread resolved by a person while the flagged line is still there: dismissed. */
  dismissed: Finding[];
  rejected: RejectedFinding[];
}

/** Full file texts at this head (RIGHT) and its base (LEFT), by `fileLinesKey`; where neighbours are read. */
export type FileLines = ReadonlyMap<string, readonly string[]>;

export function fileLinesKey(side: Side, path: string): string {
  return `${side}:${path}`;
}

export interface ReconcileInput {
  previous: readonly Finding[];
  diff: PullDiff;
  headSha: string;
  filed: readonly NewFinding[];
  files?: FileLines;
}

/** Closed by a person (thread resolved without a fix, "won't fix", 👎): that code is never flagged again on the PR. */
function dismissedByHuman(f: Finding): boolean {
  return f.status === "dismissed" || (f.status === "resolved" && f.closedBy === "human");
}

/**
 * Evolves a PR's findings to a new head. Pure: the same inputs always give the same set.
 *
 * A finding is keyed on what it points at (path, side, rule, the flagged line's normalised text). At
 * a new head each earlier finding is matched to a diff line with that text; when several findings and
 * lines share a key, neighbours read from the file, then the distance, decide who gets which line.
 * An open finding left without a line was fixed. Closed findings are matched the same way, so a new
 * filing on their line is refused; one a person dismissed refuses its key anywhere in the PR.
 */
export function reconcileFindings({ previous, diff, headSha, filed, files }: ReconcileInput): ReconcileResult {
  const result: ReconcileResult = { findings: [], added: [], moved: [], unchanged: [], resolved: [], dismissed: [], rejected: [] };
  const neighbours = (a: Anchor): Neighbours => neighboursIn(files?.get(fileLinesKey(a.side, a.path)), a.line);
  const assigned = assign(previous, diff, neighbours);
  /** Where each earlier finding sits at this head, for refusing a second filing on the same line. */
  const anchoredAt = new Map<string, Finding>();

  for (const f of previous) {
    const to = assigned.get(f);
    if (f.status !== "open" || f.lineText === undefined) {
      // Closed findings stay as they are; legacy ones (no line text) are kept open, never auto-resolved.
      const kept = f.status === "open" ? { ...f, headSha } : f;
      result.findings.push(kept);
      if (f.status === "open") result.unchanged.push(kept);
      if (to) anchoredAt.set(anchorKey(to), kept);
      continue;
    }
    if (!to) {
      const resolved: Finding = { ...f, status: "resolved", closedBy: "fix" };
      result.resolved.push(resolved);
      result.findings.push(resolved);
      continue;
    }
    if (f.threadResolved === true) {
      // A person resolved our thread and the flagged line is still there: resolved without a fix.
      const dismissed: Finding = { ...f, status: "dismissed", closedBy: "human" };
      anchoredAt.set(anchorKey(to), dismissed);
      result.dismissed.push(dismissed);
      result.findings.push(dismissed);
      continue;
    }
    const next: Finding = { ...f, ...to, fingerprint: findingKey(to.path, to.side, f.rule, f.lineText), neighbours: neighbours(to), headSha };
    anchoredAt.set(anchorKey(to), next);
    if (to.path === f.path && to.line === f.line && to.side === f.side) result.unchanged.push(next);
    else result.moved.push({ finding: next, from: { path: f.path, line: f.line, side: f.side } });
    result.findings.push(next);
  }

  const dismissedKeys = new Map(result.findings.filter(dismissedByHuman).map((f) => [f.fingerprint, f]));
  for (const n of filed) {
    const rejection = rejectReason(diff, n);
    if (rejection) {
      result.rejected.push({ filed: n, ...rejection });
      continue;
    }
    const at: Anchor = { path: n.path, line: n.line, side: n.side };
    const lineText = lineTextAt(diff, n.path, n.line, n.side)!;
    const fingerprint = findingKey(n.path, n.side, n.rule, lineText);
    const here = anchoredAt.get(anchorKey(at));
    const existing = here && here.rule.trim().toLowerCase() === n.rule.trim().toLowerCase() ? here : dismissedKeys.get(fingerprint);
    if (existing) {
      result.rejected.push(
        existing.status === "open"
          ? { filed: n, code: "duplicate", reason: `duplicate of open finding ${existing.id} ("${existing.title}"); it is already posted`, existingId: existing.id }
          : { filed: n, code: "previously_closed", reason: `finding ${existing.id} on this code was ${existing.status}; it is not raised again`, existingId: existing.id },
      );
      continue;
    }
    const finding: Finding = {
      id: `f-${createHash("sha256").update(`${fingerprint}\u0000${n.line}\u0000${headSha}`).digest("hex").slice(0, 12)}`,
      fingerprint,
      lineText,
      neighbours: neighbours(at),
      path: n.path,
      line: n.line,
      side: n.side,
      headSha,
      severity: n.severity,
      title: n.title,
      body: n.body,
      ...(n.suggestion !== undefined ? { suggestion: n.suggestion } : {}),
      rule: n.rule,
      status: "open",
    };
    anchoredAt.set(anchorKey(at), finding);
    result.added.push(finding);
    result.findings.push(finding);
  }
  return result;
}

function anchorKey(a: Anchor): string {
  return `${a.side}:${a.path}:${a.line}`;
}

/**
 * Matches earlier findings (with a line text) to this head's diff lines of the same text: within each
 * (path, side, rule, text) group, greedily by most neighbours equal, then least distance, then open
 * before closed. Each line goes to at most one finding.
 */
function assign(previous: readonly Finding[], diff: PullDiff, neighbours: (a: Anchor) => Neighbours): Map<Finding, Anchor> {
  const groups = new Map<string, Finding[]>();
  for (const f of previous) {
    if (f.lineText === undefined) continue;
    const g = `${f.path}\u0000${f.side}\u0000${f.rule.trim().toLowerCase()}\u0000${f.lineText}`;
    groups.set(g, [...(groups.get(g) ?? []), f]);
  }
  const out = new Map<Finding, Anchor>();
  for (const members of groups.values()) {
    const first = members[0]!;
    const candidates = candidatesFor(diff, first.path, first.side, first.lineText!);
    const pairs = members.flatMap((f) => candidates.map((c) => ({ f, c, same: sameNeighbours(f.neighbours, neighbours(c)), distance: (c.path === f.path ? 0 : 1e6) + Math.abs(c.line - f.line) })));
    pairs.sort((a, b) => b.same - a.same || a.distance - b.distance || Number(a.f.status !== "open") - Number(b.f.status !== "open"));
    const taken = new Set<string>();
    for (const p of pairs) {
      if (out.has(p.f) || taken.has(anchorKey(p.c))) continue;
      out.set(p.f, p.c);
      taken.add(anchorKey(p.c));
    }
  }
  return out;
}

function sameNeighbours(a: Neighbours | undefined, b: Neighbours): number {
  if (!a) return 0;
  return (a[0] !== null && a[0] === b[0] ? 1 : 0) + (a[1] !== null && a[1] === b[1] ? 1 : 0);
}

function rejectReason(diff: PullDiff, n: NewFinding): { code: RejectCode; reason: string } | null {
  if (!diff.files.has(n.path)) return { code: "file_not_in_diff", reason: `${n.path} is not changed by this pull request; file findings only on changed files` };
  if (!isCommentable(diff, n.path, n.line, n.side)) {
    return { code: "unchanged_line", reason: `${n.path}:${n.line} (${n.side}) is not part of the diff (an unchanged line); anchor the finding to the changed line that causes the problem` };
  }
  if (!isChangedLine(diff, n.path, n.line, n.side)) {
    return { code: "context_line", reason: `${n.path}:${n.line} (${n.side}) is unchanged context in the diff; anchor the finding to an added or removed line` };
  }
  return null;
}
