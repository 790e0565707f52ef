import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { readCommitChecks } from "../../shared/check-runs.js";
import type { GitHubRunContext } from "./run-context.js";

function prNumberOf(ctx: GitHubRunContext, explicit?: number): number | null {
  return explicit ?? ctx.state.prNumber ?? null;
}

/** One line per check run and commit status on the PR's head: what CI says, compactly. */
export async function summarizeChecks(ctx: GitHubRunContext, prNumber: number): Promise<string> {
  const { data: pr } = await ctx.octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner: ctx.owner, repo: ctx.repo, pull_number: prNumber });
  const sha = pr.head.sha;
  const { checkRuns, status } = await readCommitChecks(ctx.octokit, ctx, sha);
  const lines = [
    ...checkRuns.map((r) => `check_run ${r.id} "${r.name}": ${r.status}${r.conclusion ? `/${r.conclusion}` : ""}`),
    ...status.statuses.map((s) => `status "${s.context}": ${s.state}${s.description ? ` — ${s.description}` : ""}`),
  ];
  return `PR #${prNumber} head ${sha.slice(0, 12)} (${status.state}):\n${lines.join("\n") || "no checks reported yet"}`;
}

export function prChecksTool(ctx: GitHubRunContext) {
  return tool(
    async ({ pr_number }) => {
      const n = prNumberOf(ctx, pr_number);
      if (n === null) return "No pull request in this run yet: pass pr_number.";
      return summarizeChecks(ctx, n);
    },
    {
      name: "get_pr_checks",
      description: "List the CI check runs and commit statuses on a pull request's head commit.",
      schema: z.object({ pr_number: z.number().int().positive().optional().describe("defaults to this run's PR") }),
    },
  );
}

const MAX_LOG_CHARS = 20_000;

/** The tail of a failed check's log (GitHub Actions job logs), or the check's own output otherwise. */
export async function checkLogs(ctx: Pick<GitHubRunContext, "octokit" | "owner" | "repo">, checkRunId: number): Promise<string> {
  const { data: run } = await ctx.octokit.request("GET /repos/{owner}/{repo}/check-runs/{check_run_id}", { owner: ctx.owner, repo: ctx.repo, check_run_id: checkRunId });
  let text = [run.output?.title, run.output?.summary, run.output?.text].filter(Boolean).join("\n\n");
  if (run.app?.slug === "github-actions") {
    const res = await ctx.octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", { owner: ctx.owner, repo: ctx.repo, job_id: checkRunId });
    text = typeof res.data === "string" ? res.data : Buffer.from(res.data as ArrayBuffer).toString("utf8");
  }
  const tail = text.length > MAX_LOG_CHARS ? `…(${text.length - MAX_LOG_CHARS} earlier characters cut)\n${text.slice(-MAX_LOG_CHARS)}` : text;
  return `check_run ${checkRunId} "${run.name}" ${run.conclusion ?? run.status}:\n${tail || "(no output)"}`;
}

export function checkLogsTool(ctx: GitHubRunContext) {
  return tool(async ({ check_run_id }) => checkLogs(ctx, check_run_id), {
    name: "get_check_logs",
    description: "Read the log tail of a CI check run (ids come from get_pr_checks).",
    schema: z.object({ check_run_id: z.number().int().positive() }),
  });
}
