import { formatRunSummary } from "../agent/run-record.js";
import { footerPlaces } from "../config/pr-conventions.js";
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
 * or, when the agent never replied, a reply that says how the run ended. `facts` (computed from what the
 * run pushed, not from the model's words) lead it; `failure` is why a failed run failed (never its raw error).
 */
export async function finishRun(ctx: GitHubRunContext, record: RunRecord, notes: string[], facts: string[] = [], failure?: string): Promise<void> {
  const places = footerPlaces(ctx.conventions?.footer ?? "comment");
  if (places.pullRequest && ctx.state.prNumber !== undefined) await footPullRequest(ctx, ctx.state.prNumber, `<sub>Open SWE · ${formatRunSummary(record)}</sub>`);
  // A failed run says why in words a requester can act on (failure-reason.ts); the error itself is in the run's record and the log.
  const outcome = record.outcome === "failed" && failure ? `I hit an error and could not finish: ${failure}.` : OUTCOME_TEXT[record.outcome];
  const extra = [...notes, outcome].filter(Boolean);
  if (record.outcome === "budget_exceeded") extra.push(`Spent: $${(record.costUsd ?? 0).toFixed(4)}.`);
  if (ctx.source) {
    // Slack, Linear, …: one closing message, always with the PR link (the agent's replies cannot be edited here).
    const lead = [...facts, ...(record.prUrl ? [`Pull request: ${record.prUrl}`] : []), ...extra];
    if (lead.length === 0 && !ctx.state.replied) lead.push("The run finished without a reply.");
    const closing = [...lead, ...(places.comment ? [`_Open SWE · ${formatRunSummary(record)}_`] : [])];
    if (closing.length > 0) await postRunComment(ctx, closing.join("\n\n"));
    return;
  }
  const footer = places.comment ? [`<sub>Open SWE · ${formatRunSummary(record)}</sub>`] : [];
  const { lastReply, target } = { lastReply: ctx.state.lastReply, target: ctx.target };
  if (lastReply && target && record.outcome !== "failed") {
    const body = [...facts, lastReply.body, ...extra, ...footer].join("\n\n");
    if (body === lastReply.body) return;
    // Once per run, through the ledger: a run that lost its job's lock never edits the reply again.
    await ctx.effects.once(`${ctx.runId}:summary`, async () => (await editReply(ctx.octokit, target, lastReply.id, body), { id: lastReply.id }));
    return;
  }
  const lead = extra.length > 0 ? extra : [record.prUrl ? `Pull request: ${record.prUrl}` : "The run finished without a reply."];
  await postRunComment(ctx, [...facts, ...lead, ...footer].join("\n\n"));
}

const PR_FOOTER_MARK = "<!-- open-swe:footer -->";

/** `footer: all`: the PR's description ends with this run's cost line (a later run's replaces it). Once per run. */
async function footPullRequest(ctx: GitHubRunContext, number: number, line: string): Promise<void> {
  const repo = { owner: ctx.owner, repo: ctx.repo, pull_number: number };
  await ctx.effects.once(`${ctx.runId}:pr-footer`, async () => {
    const { data } = await ctx.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", repo);
    const kept = (data.body ?? "").split(PR_FOOTER_MARK)[0]!.trimEnd();
    await ctx.octokit.request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", { ...repo, body: `${kept}\n\n${PR_FOOTER_MARK}\n${line}` });
    return { number };
  });
}
