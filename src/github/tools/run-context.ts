import type { VerifiedProvenance } from "../../queue/job-provenance.js";
import type { Octokit } from "../app-auth.js";
import type { QueueSet } from "../../queue/queues.js";
import type { SideEffectLedger } from "../../store/side-effects.js";
import type { PrThreads } from "../../store/pr-threads.js";
import type { ReplyTarget } from "../reply.js";
import type { PrAuthor } from "../user-pr-author.js";
import type { AgentSource } from "../../queue/schemas.js";
import type { FooterSetting, PrConventions } from "../../config/pr-conventions.js";

/**
 * A run asked from another source (Slack, Linear, …): where it answers and what answers there. The host
 * tools only reply; the run passes its source's whole channel (`RunSourceChannel`, src/sources/source.ts).
 */
export interface SourceReplyChannel {
  origin: Exclude<AgentSource, { kind: "github" }>;
  client: {
    reply(ref: Record<string, unknown>, markdown: string): Promise<void>;
    postedReply?(ref: Record<string, unknown>, markdown: string, since: string): Promise<boolean>;
  };
}

/** What one agent run knows about where it works and what it has done; host-side tools share it. */
export interface RunState {
  prUrl?: string;
  prNumber?: number;
  pushedSha?: string;
  /** A CI fix's last push: how its tests were judged (the runner's list, or the heuristic only), for the Autofix check. */
  testNote?: string;
  replied: boolean;
  /** The last reply this run posted, so the run summary can be appended to it instead of a new comment. */
  lastReply?: { id: number; body: string };
}

export interface GitHubRunContext {
  octokit: Octokit;
  installationId: number;
  owner: string;
  repo: string;
  threadId: string;
  runId: string;
  /** The issue/PR the request came from, and the comment to answer; null when `source` is where it answers. */
  target: ReplyTarget | null;
  /** Set when the request came from another source: replies go there instead of a GitHub comment. */
  source?: SourceReplyChannel;
  requester: { login: string; id: number };
  branch: string;
  baseBranch: string;
  effects: SideEffectLedger;
  queues: QueueSet;
  /** The job's verified principal and how it was established: the jobs this run queues carry it on. */
  provenance: VerifiedProvenance;
  /** Where the PR this run opens is recorded as part of its thread. */
  prThreads: PrThreads;
  /** The job's grant (a writer's explicit `--verdict`), never read from text; wake-ups inherit it. */
  verdictAuthorized: boolean;
  state: RunState;
  /** Set when this execution resumes a run an earlier one started (its start time): effects look at GitHub first. */
  resumedSince?: string;
  /** This app's bot login (`<slug>[bot]`): a reply found at GitHub is this run's only if this login wrote it. */
  botLogin: string;
  /** "Open PRs as me": the requester's client for their PR (host-side), or the note the app's PR carries. */
  prAuthor?: PrAuthor;
  /** The repository's `pr` conventions and `footer` setting (`.github/open-swe.yml`); absent: none, footer on replies. */
  conventions?: { pr: PrConventions; footer: FooterSetting };
}

/** Run state survives the worker: a run resumed elsewhere still knows its PR and its last reply. */
export async function saveRunState(ctx: Pick<GitHubRunContext, "effects" | "runId" | "state">): Promise<void> {
  await ctx.effects.set(`${ctx.runId}:state`, ctx.state);
}

export async function loadRunState(ctx: Pick<GitHubRunContext, "effects" | "runId">): Promise<RunState> {
  return (await ctx.effects.get<RunState>(`${ctx.runId}:state`)) ?? { replied: false };
}
