import type { Logger } from "pino";
import type { LinearApi } from "../linear-api.js";
import type { LinearRef } from "../linear-ref.js";

export interface LinearToolDeps {
  api: LinearApi;
  /** The conversation the run answers: the default issue and team, where `linear_comment` posts. */
  ref: LinearRef;
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
