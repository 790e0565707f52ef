import { z } from "zod";
import type { LinearToolDeps } from "./tool-deps.js";

const ISSUE_TEAM = `query OpenSweIssueTeam($id: String!) {
  issue(id: $id) { id identifier team { id key } }
}`;

const IssueTeam = z.object({ issue: z.object({ id: z.string(), identifier: z.string(), team: z.object({ id: z.string(), key: z.string() }) }).nullish() });

/** Pure: the refusal for a write to `identifier` of team `teamId` on a run whose writes are kept to `scope`, or null. */
export function outsideTeam(scope: string | undefined, identifier: string, teamId: string): string | null {
  if (scope === undefined || teamId === scope) return null;
  return `Refused: ${identifier} is outside team ${scope}, the one linked to this repository; writes stay in that team.`;
}

/**
 * Where a write to `issueId` may go: the issue's id when the run has no team scope (a Linear run, as
 * before, no lookup) or the issue is in the linked team (one query); otherwise the refusal sentence,
 * and no write is sent.
 */
export async function writableIssue(deps: LinearToolDeps, issueId: string): Promise<{ id: string } | { refused: string }> {
  if (deps.team === undefined) return { id: issueId };
  const { issue } = await deps.api.request(ISSUE_TEAM, { id: issueId }, IssueTeam);
  if (!issue) return { refused: `No Linear issue ${issueId}.` };
  const refused = outsideTeam(deps.team, issue.identifier, issue.team.id);
  return refused ? { refused } : { id: issue.id };
}
