import type { Finding, Severity } from "../findings.js";

export type Outcome = "accepted" | "rejected" | "pending";

export interface FindingOutcome {
  pull: string;
  id: string;
  rule: string;
  severity: Severity;
  title: string;
  path: string;
  outcome: Outcome;
}

/**
 * Pure: what became of each finding. Fixed by the author → accepted; dismissed, resolved by a
 * human without a fix, or thumbed down → rejected; still open → pending.
 */
export function findingOutcome(f: Finding, thumbsDown: ReadonlySet<string> = new Set()): Outcome {
  if (thumbsDown.has(f.id)) return "rejected";
  if (f.status === "dismissed") return "rejected";
  if (f.status === "resolved") return f.closedBy === "human" ? "rejected" : "accepted";
  return "pending";
}

export function findingOutcomes(pull: string, findings: readonly Finding[], thumbsDown: ReadonlySet<string> = new Set()): FindingOutcome[] {
  return findings.map((f) => ({ pull, id: f.id, rule: f.rule, severity: f.severity, title: f.title, path: f.path, outcome: findingOutcome(f, thumbsDown) }));
}

export interface RuleTally {
  rule: string;
  accepted: number;
  rejected: number;
  pending: number;
  /** accepted / (accepted + rejected), or null before any verdict from the team. */
  acceptance: number | null;
}

/** Per-rule tallies, worst acceptance first: what the continual analyzer should learn from. */
export function tallyByRule(outcomes: readonly FindingOutcome[]): RuleTally[] {
  const byRule = new Map<string, RuleTally>();
  for (const o of outcomes) {
    const t = byRule.get(o.rule) ?? { rule: o.rule, accepted: 0, rejected: 0, pending: 0, acceptance: null };
    t[o.outcome] += 1;
    byRule.set(o.rule, t);
  }
  const tallies = [...byRule.values()].map((t) => ({ ...t, acceptance: t.accepted + t.rejected === 0 ? null : t.accepted / (t.accepted + t.rejected) }));
  return tallies.sort((a, b) => (a.acceptance ?? 2) - (b.acceptance ?? 2) || b.rejected - a.rejected || a.rule.localeCompare(b.rule));
}
