import { z } from "zod";
import { composeConfigGet } from "@probot/octokit-plugin-config";
import type { ProbotOctokit as Octokit } from "probot";
import { OpenSweError } from "../errors.js";
import { ToolPolicies } from "./tool-policy.js";
import { McpServers } from "./mcp-config.js";
import { FooterSetting, PrConventions } from "./pr-conventions.js";

export const REPO_CONFIG_PATH = ".github/open-swe.yml";

const Severity = z.enum(["low", "medium", "high", "critical"]);

/** `.github/open-swe.yml`: strict, so a typo is an error the user sees, not a silently ignored key. */
export const RepoConfig = z
  .object({
    review: z
      .object({
        auto: z.boolean().default(true).meta({ description: "Auto-review pull requests (in repositories enabled for review)" }),
        include_drafts: z.boolean().default(false).meta({ description: "Review draft pull requests too" }),
        ignored_paths: z.array(z.string().min(1)).default([]).meta({ description: 'Globs of paths the reviewer ignores, e.g. ["dist/**", "**/*.snap"]' }),
        severity_floor: Severity.default("low").meta({ description: "The lowest severity of a finding the reviewer posts" }),
        model: z.string().min(1).optional().meta({ description: "The reviewer's model (a model id, e.g. claude-sonnet-4-5)" }),
      })
      .strict()
      .default({ auto: true, include_drafts: false, ignored_paths: [], severity_floor: "low" })
      .meta({ description: "The PR reviewer" }),
    autofix: z
      .object({
        default: z.boolean().default(false).meta({ description: "CI autofix on for every PR the agent opens here (unless `@open-swe autofix off` on it)" }),
        max_attempts: z.number().int().min(1).max(20).default(3).meta({ description: "Fix runs per pull request, at most" }),
      })
      .strict()
      .default({ default: false, max_attempts: 3 })
      .meta({ description: "CI autofix: fix runs when a pull request's checks fail" }),
    agent: z
      .object({
        model: z.string().min(1).optional().meta({ description: "The coding agent's model (a model id)" }),
        network: z.boolean().default(true).meta({ description: "Sandbox egress (dependency installs); false: no network in the sandbox" }),
        allow_workflow_changes: z.boolean().default(false).meta({ description: "Let the agent push changes to .github/workflows/" }),
        /** Per-tool policy: `{ execute: ask, "mcp__docs__*": deny }`; beats the team default. */
        tools: ToolPolicies.default({}).meta({
          description: 'Per-tool policy, beating the team default: a tool name or a prefix ending in * \u2192 always_allow | ask | deny, e.g. { execute: ask, "mcp__docs__*": always_allow }',
        }),
        /** MCP servers for this repository's runs (no secrets; remote ones must be public addresses). */
        mcp_servers: McpServers.default({}).meta({
          description: "MCP servers for this repository's runs, by name: { url, transport?, headers? } (a public http(s) address; no secrets) or { command, args?, env? } (started inside the sandbox)",
        }),
        /** USD one run may spend; with AGENT_MAX_BUDGET_USD set too, the lower wins. */
        max_budget_usd: z.number().positive().optional().meta({ description: "USD one run may spend (the lower of this and AGENT_MAX_BUDGET_USD)" }),
        /** Tokens (input and output) one run may use; with AGENT_MAX_BUDGET_TOKENS set too, the lower wins. */
        max_budget_tokens: z
          .number()
          .int()
          .positive()
          .optional()
          .meta({ description: "Tokens (input and output) one run may use (the lower of this and AGENT_MAX_BUDGET_TOKENS); a $0 model is capped too" }),
        /** The repository's instructions for its runs (a system-prompt part after the run's mode). */
        instructions: z.string().max(8000).optional().meta({ description: "Added to the agent's system prompt on every run here (up to 8000 characters)" }),
      })
      .strict()
      .default({ network: true, allow_workflow_changes: false, tools: {}, mcp_servers: {} })
      .meta({ description: "The coding agent" }),
    model: z.string().min(1).optional().meta({ description: "The model for both the agent and the reviewer, unless agent.model or review.model says otherwise" }),
    /** The team's PR conventions: title template, description sections (`pr-conventions.ts`). */
    pr: PrConventions.default({}).meta({ description: "The team's PR conventions: title template and description sections" }),
    /** The run's cost line: `off`, on its reply (`comment`, as before), or on its reply and its PR (`all`). */
    footer: FooterSetting.default("comment").meta({ description: "The run's cost line: off, comment (on its reply) or all (its reply and its PR)" }),
  })
  .strict()
  .meta({ title: "Open SWE repository config", description: "`.github/open-swe.yml`: how Open SWE works on this repository. Unknown keys are errors." });
export type RepoConfig = z.infer<typeof RepoConfig>;

export class RepoConfigError extends OpenSweError<"repo_config_invalid"> {
  constructor(
    message: string,
    readonly details: string,
  ) {
    super("repo_config_invalid", message);
  }
}

/** Turns zod issues into lines a repo owner can act on: `review.auto: expected boolean, received string`. */
export function formatConfigIssues(error: z.ZodError): string {
  return error.issues.map((i) => `- \`${i.path.join(".") || "(root)"}\`: ${i.message}`).join("\n");
}

export function parseRepoConfig(raw: unknown): RepoConfig {
  const result = RepoConfig.safeParse(raw ?? {});
  if (!result.success) {
    throw new RepoConfigError(`${REPO_CONFIG_PATH} is invalid`, formatConfigIssues(result.error));
  }
  return result.data;
}

type Request = Octokit["request"];

/**
 * `octokit` whose read of `<owner>/.github`'s copy of `path` was sent before it is asked for: Probot's
 * loader reads it only after the repository's own file turned out missing, one round trip later.
 * Unused (the repository has its own file) it costs one request, never an error.
 */
function prefetchingOrgFile(octokit: Octokit, owner: string, path: string): Pick<Octokit, "request"> {
  const orgFile = { method: "GET", url: "/repos/{owner}/{repo}/contents/{path}", owner, repo: ".github", path, mediaType: { format: "raw" } } as const;
  const orgUrl = octokit.request.endpoint(orgFile).url;
  const early = octokit.request(orgFile);
  early.catch(() => undefined);
  const isOrgFile = (options: unknown) => typeof options === "object" && options !== null && "url" in options && octokit.request.endpoint(options as never).url === orgUrl;
  const request = ((options: unknown) => (isOrgFile(options) ? early : octokit.request(options as never))) as Request;
  return { request: Object.assign(request, { endpoint: octokit.request.endpoint, defaults: octokit.request.defaults }) };
}

/**
 * Reads the repo's config from its default branch with Probot's config loader (the repository's file, else
 * its owner's `.github` repository's; `_extends`), both reads sent at once.
 */
export async function loadRepoConfig(octokit: Octokit, owner: string, repo: string): Promise<RepoConfig> {
  let raw: Record<string, unknown>;
  try {
    const reader = repo === ".github" ? octokit : prefetchingOrgFile(octokit, owner, REPO_CONFIG_PATH);
    ({ config: raw } = await composeConfigGet(reader as never, { owner, repo, path: REPO_CONFIG_PATH }));
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === undefined) throw new RepoConfigError(`${REPO_CONFIG_PATH} could not be parsed as YAML`, `- ${(err as Error).message}`);
    throw err;
  }
  return parseRepoConfig(raw);
}
