/** How a run ended (the run record's `outcome`); a plain list so the CLI's usage needs no zod. */
export const RUN_OUTCOMES = ["pr_opened", "completed", "step_limit", "sandbox_failed", "incomplete", "failed", "awaiting_approval", "budget_exceeded", "stopped"] as const;
