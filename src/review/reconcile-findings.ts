import { fingerprintAt, isChangedLine, isCommentable, locateFingerprint, type Anchor, type PullDiff } from "./diff.js";
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
  /** Open before, code gone at the new head: resolved by the fix. */
  resolved: Finding[];
  rejected: RejectedFinding[];
}

export interface ReconcileInput {
  previous: readonly Finding[];
  diff: PullDiff;
  headSha: string;
  filed: readonly NewFinding[];
}

/**
 * Evolves a PR's findings to a new head. Pure: the same inputs always give the same set.
 * Closed findings (resolved or dismissed, by a fix or a human) are kept as they are and never
 * raised again; a new finding is accepted only on a line this PR changed.
 */
export function reconcileFindings({ previous, diff, headSha, filed }: ReconcileInput): ReconcileResult {
  const result: ReconcileResult = { findings: [], added: [], moved: [], unchanged: [], resolved: [], rejected: [] };

  for (const f of previous) {
    if (f.status !== "open") {
      result.findings.push(f);
      continue;
    }
    const hits = locateFingerprint(diff, f.path, f.rule, f.fingerprint);
    if (hits.length === 0) {
      const resolved: Finding = { ...f, status: "resolved", closedBy: "fix" };
      result.resolved.push(resolved);
      result.findings.push(resolved);
      continue;
    }
    const same = hits.find((h) => h.path === f.path && h.line === f.line && h.side === f.side);
    if (same) {
      const kept = { ...f, headSha };
      result.unchanged.push(kept);
      result.findings.push(kept);
      continue;
    }
    const to = nearest(hits, f);
    const fingerprint = to.path === f.path ? f.fingerprint : (fingerprintAt(diff, to.path, to.line, to.side, f.rule) ?? f.fingerprint);
    const moved: Finding = { ...f, ...to, fingerprint, headSha };
    result.moved.push({ finding: moved, from: { path: f.path, line: f.line, side: f.side } });
    result.findings.push(moved);
  }

  for (const n of filed) {
    const rejection = rejectReason(diff, n);
    if (rejection) {
      result.rejected.push({ filed: n, ...rejection });
      continue;
    }
    const fingerprint = fingerprintAt(diff, n.path, n.line, n.side, n.rule)!;
    const existing = result.findings.find((f) => f.fingerprint === fingerprint);
    if (existing) {
      result.rejected.push(
        existing.status === "open"
          ? { filed: n, code: "duplicate", reason: `duplicate of open finding ${existing.id} ("${existing.title}"); it is already posted`, existingId: existing.id }
          : { filed: n, code: "previously_closed", reason: `finding ${existing.id} on this code was ${existing.status}; it is not raised again`, existingId: existing.id },
      );
      continue;
    }
    const finding: Finding = {
      id: `f-${fingerprint.slice(0, 12)}`,
      fingerprint,
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
    result.added.push(finding);
    result.findings.push(finding);
  }
  return result;
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

function nearest(hits: Anchor[], from: Finding): Anchor {
  const score = (h: Anchor): number => (h.path === from.path ? 0 : 1e9) + (h.side === from.side ? 0 : 1e6) + Math.abs(h.line - from.line);
  return hits.reduce((best, h) => (score(h) < score(best) ? h : best));
}
