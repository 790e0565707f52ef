import type { FindingCounts } from "../store/run-insights.js";
import type { Finding } from "./findings.js";

/** What a stored finding was before a write: enough to tell what the write changed. */
export type FindingWas = Pick<Finding, "status" | "closedBy">;

/**
 * Pure: what replacing a PR's findings changed, for the Insights page. Raised: a finding new to the set.
 * Fixed: open before, resolved by the code's own change. Dismissed: open before, closed by a person
 * (a dismissing reply, 👎, or their thread resolved while the line is still there).
 */
export function findingTransitions(before: ReadonlyMap<string, FindingWas>, after: readonly Finding[]): FindingCounts {
  const counts: FindingCounts = { raised: 0, fixed: 0, dismissed: 0 };
  for (const f of after) {
    const was = before.get(f.id);
    if (!was) {
      counts.raised++;
      continue;
    }
    if (was.status !== "open" || f.status === "open") continue;
    if (f.status === "resolved" && f.closedBy !== "human") counts.fixed++;
    else counts.dismissed++;
  }
  return counts;
}
