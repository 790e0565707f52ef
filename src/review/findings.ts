import { z } from "zod";

export const Severity = z.enum(["low", "medium", "high", "critical"]);
export type Severity = z.infer<typeof Severity>;

export const SEVERITY_RANK: Record<Severity, number> = { low: 0, medium: 1, high: 2, critical: 3 };

export function meetsFloor(severity: Severity, floor: Severity): boolean {
  return SEVERITY_RANK[severity] >= SEVERITY_RANK[floor];
}

export const FindingStatus = z.enum(["open", "resolved", "dismissed"]);
export type FindingStatus = z.infer<typeof FindingStatus>;

export const ReviewSide = z.enum(["RIGHT", "LEFT"]);

/**
 * One finding of the PR's evolving set, anchored to (path, line, side) of the diff at `headSha`.
 * Its identity is what it points at: `fingerprint` = path + side + rule + the flagged line's own
 * normalised text (`lineText`); `neighbours` (read from the file) only choose among equal lines.
 */
export const Finding = z.object({
  id: z.string().min(1),
  fingerprint: z.string().min(1),
  /** Absent on findings stored before line-text keys: those are kept as they are, never auto-resolved. */
  lineText: z.string().optional(),
  neighbours: z.tuple([z.string().nullable(), z.string().nullable()]).optional(),
  path: z.string().min(1),
  line: z.number().int().positive(),
  side: ReviewSide,
  headSha: z.string().min(1),
  severity: Severity,
  title: z.string().min(1),
  body: z.string(),
  suggestion: z.string().optional(),
  rule: z.string().min(1),
  status: FindingStatus,
  /** Who closed it: the author's fix (its code left the diff) or a human (thread resolved, dismissed). */
  closedBy: z.enum(["fix", "human"]).optional(),
  /** The review that posted this finding; set as soon as the post succeeds, so it is never posted twice. */
  reviewId: z.number().int().optional(),
  githubCommentId: z.number().int().optional(),
  githubThreadId: z.string().optional(),
  /** Set once our review thread for a resolved finding has been resolved on GitHub. */
  threadResolved: z.boolean().optional(),
});
export type Finding = z.infer<typeof Finding>;

/** What the reviewer model files through `add_finding`. */
export const NewFinding = z.object({
  path: z.string().min(1),
  line: z.number().int().positive(),
  side: ReviewSide.default("RIGHT"),
  severity: Severity,
  title: z.string().min(1).max(200),
  body: z.string().min(1),
  suggestion: z.string().optional(),
  rule: z.string().min(1).max(80).describe("short kebab-case name of the problem class, e.g. null-deref"),
});
export type NewFinding = z.infer<typeof NewFinding>;

/** A pull request, as the key of its findings set: `owner/repo#number`. */
export interface PullRef {
  owner: string;
  repo: string;
  pull_number: number;
}

export function pullKey(pr: PullRef): string {
  return `${pr.owner}/${pr.repo}#${pr.pull_number}`;
}
