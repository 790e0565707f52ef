import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { renderPrTitle, sectionProblems } from "../../config/pr-conventions.js";
import { saveRunState, type GitHubRunContext } from "./run-context.js";

export const OpenPullRequestInput = z.object({
  title: z.string().min(1).max(256).describe("PR title"),
  body: z.string().max(60_000).describe("PR description: what changed, why, how it was tested"),
  draft: z.boolean().default(true).describe("open as a draft (default)"),
});

/** Comments on this PR are part of the thread that opened it. */
const recordThread = (ctx: GitHubRunContext, number: number) => ctx.prThreads.record({ owner: ctx.owner, repo: ctx.repo, number, branch: ctx.branch }, ctx.threadId, ctx.requester, ctx.installationId);

const refused = (err: unknown) => [401, 403].includes((err as { status?: number }).status ?? 0);

/**
 * The PR call as the requester when they asked for it ("open PRs as me"); their token refused (revoked,
 * expired) → the app's own, and the PR says so. Without a user token at all, the PR says so too.
 */
async function asAuthor<T>(ctx: GitHubRunContext, body: string, call: (octokit: GitHubRunContext["octokit"], body: string) => Promise<T>): Promise<T> {
  const author = ctx.prAuthor;
  const noted = (b: string) => (author ? `${b}\n\n${author.fallbackNote}` : b);
  if (!author?.octokit) return call(ctx.octokit, noted(body));
  try {
    return await call(author.octokit, body);
  } catch (err) {
    if (!refused(err)) throw err;
    ctx.prAuthor = { ...author, octokit: null };
    return call(ctx.octokit, noted(body));
  }
}

/** Opens the run's branch as a PR, or updates the PR that already exists for it: never a duplicate. */
export async function openOrUpdatePullRequest(ctx: GitHubRunContext, input: z.input<typeof OpenPullRequestInput>): Promise<{ url: string; number: number; created: boolean }> {
  const parsed = OpenPullRequestInput.parse(input);
  const { body, draft } = parsed;
  const title = renderPrTitle(ctx.conventions?.pr.title_template, { title: parsed.title, issue: ctx.target?.number });
  const fullBody = `${body}\n\n<!-- open-swe:thread=${ctx.threadId} -->`;
  const existing = await ctx.octokit.request("GET /repos/{owner}/{repo}/pulls", {
    owner: ctx.owner,
    repo: ctx.repo,
    head: `${ctx.owner}:${ctx.branch}`,
    state: "open",
    per_page: 1,
  });
  const found = existing.data[0];
  if (found) {
    const res = await asAuthor(ctx, fullBody, (octokit, b) =>
      octokit.request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", { owner: ctx.owner, repo: ctx.repo, pull_number: found.number, title, body: b }),
    );
    Object.assign(ctx.state, { prUrl: res.data.html_url, prNumber: res.data.number });
    await Promise.all([saveRunState(ctx), recordThread(ctx, res.data.number)]);
    return { url: res.data.html_url, number: res.data.number, created: false };
  }
  const res = await asAuthor(ctx, fullBody, (octokit, b) =>
    octokit.request("POST /repos/{owner}/{repo}/pulls", { owner: ctx.owner, repo: ctx.repo, head: ctx.branch, base: ctx.baseBranch, title, body: b, draft }),
  );
  Object.assign(ctx.state, { prUrl: res.data.html_url, prNumber: res.data.number });
  await Promise.all([saveRunState(ctx), recordThread(ctx, res.data.number)]);
  return { url: res.data.html_url, number: res.data.number, created: true };
}

export function openPullRequestTool(ctx: GitHubRunContext) {
  return tool(
    async (input) => {
      if (!ctx.state.pushedSha) return "Nothing has been pushed yet: call commit_and_push first, then open the pull request.";
      const sections = ctx.conventions?.pr.body_sections;
      const problems = sectionProblems(input.body, sections);
      if (problems.missing.length > 0 || problems.outOfOrder) {
        const wanted = (sections ?? []).map((s) => `## ${s}`).join(", ");
        const missing = problems.missing.length > 0 ? ` Missing: ${problems.missing.map((s) => `## ${s}`).join(", ")}.` : " They are out of order.";
        return `Not opened: this repository's .github/open-swe.yml asks for a description with the sections ${wanted}, in this order.${missing} Call again with the body rewritten.`;
      }
      const pr = await openOrUpdatePullRequest(ctx, input);
      return `${pr.created ? "Opened" : "Updated"} pull request #${pr.number}: ${pr.url}`;
    },
    {
      name: "open_or_update_pull_request",
      // Definitions are the start of every request's cached prefix: nothing per run or thread in them (the task message names the branches).
      description: "Open a draft pull request from the run's branch into the base branch the task names, or update the one that already exists. Returns its URL.",
      schema: OpenPullRequestInput,
    },
  );
}
