/**
 * Seed 004's prompt parts, most stable first so the provider's cached prefix covers as much as it can:
 * the global prompt (per repo), the run's mode, the repo's and the user's instructions, then the tool
 * and connected-server context. Nothing per run (ids, times, the task) belongs here: it goes in messages.
 */
export interface PromptParts {
  global: string;
  mode?: string;
  repoInstructions?: string;
  userInstructions?: string;
  /** Tool and connected-server context (which tools are on or off, which servers answered). */
  context?: readonly string[];
}

/** Joins the non-empty parts (trimmed) with blank lines, in the fixed order (pure, deterministic). */
export function composeSystemPrompt(parts: PromptParts): string {
  return [parts.global, parts.mode, parts.repoInstructions, parts.userInstructions, ...(parts.context ?? [])]
    .map((p) => p?.trim() ?? "")
    .filter((p) => p !== "")
    .join("\n\n");
}
