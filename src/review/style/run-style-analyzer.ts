import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { tool, type ClientTool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import type { ProbotOctokit } from "probot";
import { z } from "zod";
import type { FindingsStore } from "../findings-store.js";
import { findingOutcomes, tallyByRule, type FindingOutcome } from "./finding-outcomes.js";
import type { ReviewSample } from "./review-samples.js";
import { MAX_STYLE_PROMPT_CHARS, type ReviewStyle, type StyleStore } from "./style-store.js";

export type AnalyzerMode = "bootstrap" | "continual";

export interface StyleAnalyzerInput {
  mode: AnalyzerMode;
  model: BaseChatModel;
  repo: { owner: string; repo: string };
  /** The mode's procedure (a skill from prompts/), used as the system prompt. */
  instructions: string;
  styleStore: StyleStore;
  /** bootstrap: sampled human review comments. */
  samples?: readonly ReviewSample[];
  /** continual: what became of this reviewer's findings. */
  outcomes?: readonly FindingOutcome[];
  signal?: AbortSignal;
}

/**
 * Runs the review-style analyzer once. It reads its data through tools and must end by calling
 * `save_review_style_prompt`; returns the saved style, or null when the model saved nothing.
 */
export async function runStyleAnalyzer(input: StyleAnalyzerInput): Promise<ReviewStyle | null> {
  let saved: ReviewStyle | null = null;
  const tools: ClientTool[] = [
    tool(async () => (await input.styleStore.get(input.repo))?.prompt ?? "no style prompt yet", {
      name: "read_current_style",
      description: "The repository's current review-style prompt, if any.",
      schema: z.object({}),
    }),
    tool(
      async ({ prompt }: { prompt: string }) => {
        saved = await input.styleStore.save(input.repo, prompt, input.mode);
        return `saved as version ${saved.version}`;
      },
      {
        name: "save_review_style_prompt",
        description: "Save the repository-specific review style prompt (replaces the current one).",
        schema: z.object({ prompt: z.string().min(20).max(MAX_STYLE_PROMPT_CHARS) }),
      },
    ),
  ];
  if (input.mode === "bootstrap") {
    tools.push(
      tool(async () => JSON.stringify(input.samples ?? [], null, 1), {
        name: "read_review_samples",
        description: "Human review comments sampled from this repository's recent pull requests (bots excluded).",
        schema: z.object({}),
      }),
    );
  } else {
    tools.push(
      tool(async () => JSON.stringify({ byRule: tallyByRule(input.outcomes ?? []), findings: input.outcomes ?? [] }, null, 1), {
        name: "read_finding_outcomes",
        description: "What became of this reviewer's findings: accepted (fixed), rejected (dismissed, resolved without a fix, thumbed down), pending.",
        schema: z.object({}),
      }),
    );
  }
  const agent = createAgent({ model: input.model, tools, systemPrompt: input.instructions });
  const task = input.mode === "bootstrap" ? "Learn this repository's review style from its sampled review comments." : "Refine this repository's review style from the outcomes of our findings.";
  await agent.invoke({ messages: [{ role: "user", content: `${task} Repository: ${input.repo.owner}/${input.repo.repo}.` }] }, input.signal ? { signal: input.signal } : {});
  return saved;
}

/** Continual input: outcomes of every stored finding of the repo, with thumbs-down reactions applied. */
export async function collectFindingOutcomes(args: { octokit?: ProbotOctokit; store: FindingsStore; owner: string; repo: string; maxReactionLookups?: number }): Promise<FindingOutcome[]> {
  const out: FindingOutcome[] = [];
  let lookups = args.maxReactionLookups ?? 50;
  for (const pr of await args.store.listPulls(args.owner, args.repo)) {
    const findings = await args.store.list(pr);
    const thumbsDown = new Set<string>();
    for (const f of findings) {
      if (!args.octokit || f.githubCommentId === undefined || lookups <= 0) continue;
      lookups--;
      const res = await args.octokit.rest.reactions.listForPullRequestReviewComment({ owner: args.owner, repo: args.repo, comment_id: f.githubCommentId, content: "-1", per_page: 1 });
      if (Array.isArray(res.data) && res.data.length > 0) thumbsDown.add(f.id);
    }
    out.push(...findingOutcomes(`${pr.owner}/${pr.repo}#${pr.pull_number}`, findings, thumbsDown));
  }
  return out;
}
