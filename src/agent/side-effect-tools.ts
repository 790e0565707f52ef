/**
 * The run's tools that act outside the sandbox and that every GitHub run has: pushes, GitHub's reply and
 * the other host-side writes a resumed step must not repeat. A source's own reply and write tools are
 * declared in its registry entry (`SOURCE_TOOL_NAMES`, src/sources/registry.ts); a run adds them
 * (`src/runs/run-tool-names.ts`).
 */
export const DEFAULT_PUSH_TOOLS = ["commit_and_push"] as const;
export const DEFAULT_REPLY_TOOLS = ["github_comment"] as const;
export const SIDE_EFFECT_TOOLS = [...DEFAULT_PUSH_TOOLS, ...DEFAULT_REPLY_TOOLS, "open_or_update_pull_request", "request_pr_review", "schedule_thread_wakeup"] as const;
