import type { Logger } from "pino";
import type { LinearApi } from "../linear-api.js";
import type { LinearRef } from "../linear-ref.js";

export interface LinearToolDeps {
  api: LinearApi;
  /** The conversation the run answers: the default issue and team, where `linear_comment` posts. Absent on a linked repository's run. */
  ref?: LinearRef;
  /** The team linked to the run's repository (`settings source-repo linear:<team id>`): every write stays in it. */
  team?: string;
  log: Logger;
}

const MAX_CHARS = 30_000;

/** Tool output: JSON, clipped so a huge issue cannot flood the model's context. */
export function toolJson(value: unknown): string {
  const text = JSON.stringify(value, null, 1);
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}… [truncated]` : text;
}

/** Issue id (uuid) or identifier (`ENG-123`); Linear's `issue(id:)` takes either. */
export const ISSUE_ID_DESCRIPTION = "Issue id or identifier such as ENG-123; omit for the issue this conversation is on";

/** The issue a tool acts on: the one named, else the conversation's; a linked run has none to default to. */
export const NAME_THE_ISSUE = "Name the issue (issueId): this run was not asked from a Linear issue.";
export const issueOrConversation = (deps: LinearToolDeps, issueId: string | undefined): string | undefined => issueId ?? deps.ref?.issueId;
