import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import type { GitHubAuth } from "../github/app-auth.js";
import { OpenSweError } from "../errors.js";
import { ensureSandboxForThread, teardownThreadSandbox } from "../sandbox/lifecycle.js";
import type { Sandbox } from "../sandbox/types.js";
import { ensureMirror } from "../sandbox/workspace/mirror.js";
import { prepareWorkspace, type PreparedWorkspace } from "../sandbox/workspace/prepare-workspace.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { remoteUrl } from "./branch-name.js";

export interface ReviewWorkspaceTarget {
  installationId: number;
  owner: string;
  repo: string;
  number: number;
  /** The reviewer thread: its sandbox is this pass's only. */
  threadId: string;
  headSha: string;
}

export interface ReviewWorkspace {
  sandbox: Sandbox;
  workspace: PreparedWorkspace;
  /** Destroys the pass's sandbox: the next pass starts from a fresh checkout of its own head. */
  release(): Promise<void>;
}

/**
 * The PR head (`refs/pull/N/head`) in a sandbox with the network off, from the host mirror. A
 * reviewer sandbox lives for one pass: one left behind by a crashed pass is destroyed first, so a
 * pass never reviews a stale checkout.
 */
export async function prepareReviewWorkspace(opts: {
  target: ReviewWorkspaceTarget;
  github: GitHubAuth;
  config: AppConfig;
  runtime: AgentRuntime;
  redis: Redis;
  prefix: string;
  log: Logger;
}): Promise<ReviewWorkspace> {
  const { target: t, config, runtime } = opts;
  const lifecycle = { redis: opts.redis, keyPrefix: opts.prefix, threadId: t.threadId, provider: runtime.sandboxProvider, cache: runtime.sandboxCache };
  const release = async () => void (await teardownThreadSandbox(lifecycle));
  const token = await opts.github.repoScopedToken(t.installationId, t.repo);
  const mirror = await ensureMirror({ mirrorRoot: config.sandbox.mirrorRoot, repo: `${t.owner}/${t.repo}`, remoteUrl: remoteUrl(config.gitRemoteTemplate, t.owner, t.repo), token });
  await release();
  const ensured = await ensureSandboxForThread({
    ...lifecycle,
    creationTimeoutMs: config.sandbox.createTimeoutMs,
    createOptions: { network: false, labels: { thread: t.threadId, repo: `${t.owner}/${t.repo}`, role: "reviewer" } },
  });
  try {
    const workspace = await prepareWorkspace({
      sandbox: ensured.sandbox,
      mirrorRoot: config.sandbox.mirrorRoot,
      mirror,
      ref: `refs/pull/${t.number}/head`,
      branch: `open-swe-review/pr-${t.number}`,
      publicUrl: `https://github.com/${t.owner}/${t.repo}.git`,
    });
    if (workspace.sha !== t.headSha) {
      throw new OpenSweError("review_head_moved", `refs/pull/${t.number}/head is at ${workspace.sha.slice(0, 7)}, not the reviewed head ${t.headSha.slice(0, 7)}; the pull request moved`);
    }
    opts.log.info({ sandbox: ensured.sandbox.id, mode: workspace.mode, sha: workspace.sha, ms: Math.round(workspace.readyMs) }, "review workspace ready");
    return { sandbox: ensured.sandbox, workspace, release };
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}
