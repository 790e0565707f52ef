import type { Finding, Severity } from "./findings.js";
import type { UnreviewedFile } from "./budget.js";

export const SUMMARY_MARKER = "<!-- open-swe:review-summary -->";

export function findingMarker(id: string): string {
  return `<!-- open-swe:finding ${id} -->`;
}

export function findingIdFromBody(body: string): string | null {
  return /<!-- open-swe:finding (\S+) -->/.exec(body)?.[1] ?? null;
}

export function renderFindingComment(f: Finding): string {
  const parts = [`**${f.severity}** · ${f.title}`, "", f.body.trim()];
  if (f.suggestion !== undefined && f.suggestion.trim() !== "") parts.push("", "```suggestion", f.suggestion.replace(/\n$/, ""), "```");
  parts.push("", findingMarker(f.id));
  return parts.join("\n");
}

export interface SummaryInput {
  headSha: string;
  summary: string;
  findings: readonly Finding[];
  newCount: number;
  severityFloor: Severity;
  belowFloor: number;
  unreviewedFiles: readonly UnreviewedFile[];
  note?: string | undefined;
}

/** The short summary at the top of our review: counts, not a second copy of the inline comments. */
export function renderSummary(s: SummaryInput): string {
  const open = s.findings.filter((f) => f.status === "open").length;
  const resolved = s.findings.filter((f) => f.status === "resolved").length;
  const lines = [SUMMARY_MARKER, `**Open SWE review** at \`${s.headSha.slice(0, 7)}\``, "", s.summary.trim()];
  if (s.note) lines.push("", `> ${s.note}`);
  const counts = [`${open} open`, `${s.newCount} new this pass`];
  if (resolved > 0) counts.push(`${resolved} resolved`);
  lines.push("", `Findings: ${counts.join(", ")}.`);
  if (s.belowFloor > 0) lines.push(`${s.belowFloor} finding(s) below the \`${s.severityFloor}\` severity floor are not shown.`);
  if (s.unreviewedFiles.length > 0) {
    lines.push("", `Not reviewed (${s.unreviewedFiles.length}):`);
    for (const u of s.unreviewedFiles) lines.push(`- \`${u.path}\`: ${u.reason}`);
  }
  return lines.join("\n");
}
