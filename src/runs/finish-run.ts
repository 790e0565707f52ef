import { formatRunSummary } from "../agent/run-record.js";
import type { RunRecord } from "../shared/run-record.js";
import { editReply } from "../github/edit-reply.js";
import { postRunComment } from "../github/tools/github-comment.js";
import type { GitHubRunContext } from "../github/tools/run-context.js";

const OUTCOME_TEXT: Record<RunRecord["outcome"], string> = {
  pr_opened: "",
  completed: "",
  step_limit: "I reached my step limit before finishing.",
  sandbox_failed: "I stopped because the sandbox kept failing.",
  incomplete: "I stopped before finishing the task.",
  failed: "I hit an error and could not finish.",
  awaiting_approval: "",
  budget_exceeded: "I stopped before a model call that would have taken this run past its budget.",
  stopped: "Stopped from the dashboard before finishing.",
};

/**
 * The run's last word: its one-line summary (cost, duration) appended to the reply the agent posted,
 * or, when the agent never replied, a reply that says how the run ended.
 */
export async function finishRun(ctx: GitHubRunContext, record: RunRecord, notes: string[]): Promise<void> {
  const extra = [...notes, OUTCOME_TEXT[record.outcome]].filter(Boolean);
  if (record.error) extra.push(`Error: ${record.error}`);
  if (record.outcome === "budget_exceeded") extra.push(`Spent: $${(record.costUsd ?? 0).toFixed(4)}.`);
  if (ctx.source) {
    // Slack, Linear, …: one closing message, always with the PR link (the agent's replies cannot be edited here).
    const lead = [...(record.prUrl ? [`Pull request: ${record.prUrl}`] : []), ...extra];
    if (lead.length === 0 && !ctx.state.replied) lead.push("The run finished without a reply.");
    await postRunComment(ctx, [...lead, `_Open SWE · ${formatRunSummary(record)}_`].join("\n\n"));
    return;
  }
  const footer = `<sub>Open SWE · ${formatRunSummary(record)}</sub>`;
  const { lastReply, target } = { lastReply: ctx.state.lastReply, target: ctx.target };
  if (lastReply && target && record.outcome !== "failed") {
    const body = [lastReply.body, ...extra, footer].join("\n\n");
    // Once per run, through the ledger: a run that lost its job's lock never edits the reply again.
    await ctx.effects.once(`${ctx.runId}:summary`, async () => (await editReply(ctx.octokit, target, lastReply.id, body), { id: lastReply.id }));
    return;
  }
  const lead = extra.length > 0 ? extra : [record.prUrl ? `Pull request: ${record.prUrl}` : "The run finished without a reply."];
  await postRunComment(ctx, [...lead, footer].join("\n\n"));
}
