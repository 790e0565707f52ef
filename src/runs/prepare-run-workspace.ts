import { UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { Octokit } from "../github/app-auth.js";
import type { GitHubAuth } from "../shared/github-auth.js";
import type { JobSigner } from "../queue/job-provenance.js";
import { resolveBotIdentity } from "../github/bot-identity.js";
import { ensureSandboxForThread } from "../sandbox/lifecycle.js";
import type { Sandbox } from "../sandbox/types.js";
import { ensureMirror, resolveRef, resolveRefs } from "../sandbox/workspace/mirror.js";
import { prepareWorkspace, setWorkspaceIdentity, workspaceHasRepo, type PreparedWorkspace } from "../sandbox/workspace/prepare-workspace.js";
import { keyer } from "../store/keys.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";
import { agentBranchName, isThreadAgentBranch, remoteUrl } from "./branch-name.js";
import { headInBase } from "../shared/head-in-base.js";

export interface RunTarget {
  installationId: number;
  owner: string;
  repo: string;
  /** The issue or PR; absent for a run asked from another source (Slack, Linear). */
  number?: number | undefined;
  isPullRequest: boolean;
  threadId: string;
  text: string;
}

export interface RunWorkspace {
  /** The thread's sandbox; its workspace is in place once `prepare()` resolves (use `sandboxWhenReady` until then). */
  sandbox: Sandbox;
  /**
   * Puts the checkout, identity and branch in the sandbox: started by the first call (the run's first model
   * call or first use of the sandbox, whichever comes first), the same promise after.
   */
  prepare: () => Promise<PreparedWorkspace>;
  /** The commit the workspace starts from. */
  sha: string;
  workspaceLost: boolean;
  /** `read_only`: the thread's sandbox was replaced because its filesystem had gone read-only. */
  lostReason?: "gone" | "read_only" | undefined;
  mirror: string;
  remote: string;
  branch: string;
  /** The PR's base: the default branch, or the human's PR branch we stack on. */
  baseBranch: string;
  defaultBranch: string;
  /** The default branch's commit in the mirror as the run starts (where its agent files are read). */
  defaultSha: string | undefined;
  /** What the remote branch is at now (or the commit the branch started from). */
  expectedOld: string;
  /** This app's bot login (`<slug>[bot]`: GitHub's word when it could say, else APP_SLUG's): who the run's replies are by. */
  botLogin: string;
}

/**
 * Where the run works: our own branch, never a human's. A PR thread on a branch we opened continues it;
 * on someone else's PR we branch off its head and open a PR stacked onto it (forks: onto its base).
 */
export async function prepareRunWorkspace(opts: {
  target: RunTarget;
  octokit: Octokit;
  github: GitHubAuth;
  config: AppConfig;
  repoConfig: RepoConfig;
  runtime: AgentRuntime;
  redis: Redis;
  prefix: string;
  /** Seals and checks what the run trusts from Redis (the bot account). */
  signer: JobSigner;
  log: Logger;
}): Promise<RunWorkspace> {
  const { target: t, octokit, config } = opts;
  const branchKey = keyer(`${opts.prefix}:thread`)(t.threadId, "branch");
  const remote = remoteUrl(config.gitRemoteTemplate, t.owner, t.repo);
  const token = opts.github.repoScopedToken(t.installationId, t.repo);
  const bot = resolveBotIdentity({ octokit, redis: opts.redis, prefix: opts.prefix, appId: config.github?.appId ?? "none", fallbackSlug: config.env.APP_SLUG, signer: opts.signer, log: opts.log });
  // The mirror fetch and the thread's sandbox need nothing from the repository's API answers: they start
  // with them. Errors are still said in this order: the API's, then the mirror's and the sandbox's.
  const mirrored = token.then((tok) => ensureMirror({ mirrorRoot: config.sandbox.mirrorRoot, repo: `${t.owner}/${t.repo}`, remoteUrl: remote, token: tok }));
  const sandboxed = ensureSandboxForThread({
    redis: opts.redis,
    keyPrefix: opts.prefix,
    threadId: t.threadId,
    repo: `${t.owner}/${t.repo}`,
    log: opts.log,
    provider: opts.runtime.sandboxProvider,
    creationTimeoutMs: config.sandbox.createTimeoutMs,
    cache: opts.runtime.sandboxCache,
    host: opts.runtime.hostId,
    createOptions: { network: opts.repoConfig.agent.network, labels: { thread: t.threadId, repo: `${t.owner}/${t.repo}` } },
  }).then(async (e) => ({ ...e, reused: await workspaceHasRepo(e.sandbox) }));
  for (const started of [mirrored, sandboxed]) started.catch(() => undefined);
  // Independent round trips go out together: repo, PR, the thread's branch, a repo-scoped token, the bot.
  const [{ data: repoInfo }, pull, savedBranch, , identity] = await Promise.all([
    octokit.request("GET /repos/{owner}/{repo}", { owner: t.owner, repo: t.repo }),
    t.isPullRequest && t.number !== undefined ? octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner: t.owner, repo: t.repo, pull_number: t.number }) : null,
    opts.redis.get(branchKey),
    token,
    bot,
  ]);
  const defaultBranch = repoInfo.default_branch;
  let ref = `refs/heads/${defaultBranch}`;
  // One branch per thread: a later request on the same issue keeps building on (and updating the PR of) it.
  let branch: string | null = null;
  let baseBranch = defaultBranch;
  if (pull) {
    const pr = pull.data;
    const sameRepo = headInBase(pr.head.repo?.full_name, t);
    ref = `refs/pull/${pr.number}/head`;
    if (sameRepo && pr.head.ref.startsWith("open-swe/")) {
      // GitHub's word on the verified job's PR: its head branch, whatever Redis recorded.
      branch = pr.head.ref;
      baseBranch = pr.base.ref;
    } else {
      baseBranch = sameRepo ? pr.head.ref : pr.base.ref;
    }
  }
  // The recorded branch is Redis's word (issue #42): pushed to only when it is a name this thread's runs give their branch.
  if (branch === null && savedBranch !== null && !isThreadAgentBranch(t.threadId, savedBranch)) {
    // Said in a code span, at most 100 characters: the value is anyone's who could write the key.
    const shown = savedBranch.slice(0, 100).replace(/[`\s]/g, "?");
    const reason = `the branch recorded for this thread, \`${shown}\`, is not this thread's branch (\`open-swe/${t.threadId.slice(0, 8)}-…\`): I push nowhere else, and its record in Redis was not written by the worker`;
    opts.log.warn({ threadId: t.threadId, branch: shown }, "thread branch refused: the recorded branch is not this thread's branch (its Redis key was written outside the worker?)");
    throw new UnrecoverableError(reason);
  }
  branch ??= savedBranch ?? agentBranchName(t.threadId, t.text);
  const [mirror, ensured] = await Promise.all([mirrored, sandboxed, opts.redis.set(branchKey, branch, "EX", 90 * 86400)]);
  // A branch an earlier run already pushed is where this run picks up, whatever sandbox it gets.
  // The refs the run needs come from one git process: that branch, the PR's head, the default branch.
  const heads = await resolveRefs(mirror, [`refs/heads/${branch}`, ref, `refs/heads/${defaultBranch}`]);
  const remoteHead = heads.get(`refs/heads/${branch}`) ?? "";
  if (remoteHead) ref = `refs/heads/${branch}`;
  const sha = heads.get(ref) ?? (await resolveRef(mirror, ref));
  // The branch's starting commit is remembered per thread: a reused workspace keeps building on it.
  const baseKey = keyer(`${opts.prefix}:thread`)(t.threadId, "base");
  if (!ensured.reused || ensured.workspaceLost) await opts.redis.set(baseKey, sha);
  const base = (await opts.redis.get(baseKey)) ?? sha;
  // The sandbox side (identity, checkout, branch) is not started here: nothing before the first model call reads it,
  // and on a busy machine its processes would compete with the rest of the run's set-up.
  const putInPlace = () =>
    (ensured.reused ? setWorkspaceIdentity(ensured.sandbox, identity) : Promise.resolve())
      .then(() =>
        prepareWorkspace({
          sandbox: ensured.sandbox,
          sha,
          mirrorRoot: config.sandbox.mirrorRoot,
          mirror,
          ref,
          branch,
          publicUrl: `https://github.com/${t.owner}/${t.repo}.git`,
          identity,
          reused: ensured.reused,
        }),
      )
      .then((workspace) => {
        opts.log.info({ sandbox: ensured.sandbox.id, outcome: ensured.outcome, mode: workspace.mode, branch, ms: Math.round(workspace.readyMs) }, "workspace ready");
        return workspace;
      });
  let preparing: Promise<PreparedWorkspace> | undefined;
  return {
    sandbox: ensured.sandbox,
    prepare: () => (preparing ??= putInPlace()),
    sha,
    workspaceLost: ensured.workspaceLost,
    lostReason: ensured.lostReason,
    mirror,
    remote,
    branch,
    baseBranch,
    defaultBranch,
    defaultSha: heads.get(`refs/heads/${defaultBranch}`),
    expectedOld: remoteHead || base,
    botLogin: identity.name,
  };
}
