import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AppConfig } from "../config/env.js";
import type { GitHubAuth } from "../shared/github-auth.js";
import { OpenSweError } from "../errors.js";
import { ensureSandboxForThread, teardownThreadSandbox } from "../sandbox/lifecycle.js";
import type { Sandbox } from "../sandbox/types.js";
import { ensureMirror, resolveRef } from "../sandbox/workspace/mirror.js";
import { prepareWorkspace, type PreparedWorkspace } from "../sandbox/workspace/prepare-workspace.js";
import type { AgentRuntime } from "../threads/agent-runtime.js";
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
 * The PR head (`refs/pull/N/head`, or the reviewed sha when the PR moved since) in a sandbox with the
 * network off, from the host mirror. A
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
  // The PR head as GitHub named it; when it moved since, the reviewed commit itself (the diff is its).
  const pullRef = `refs/pull/${t.number}/head`;
  const ref = (await resolveRef(mirror, pullRef).catch(() => "")) === t.headSha ? pullRef : t.headSha;
  if (ref === t.headSha && !(await resolveRef(mirror, ref).catch(() => ""))) {
    throw new OpenSweError("review_head_missing", `the reviewed head ${t.headSha.slice(0, 7)} of pull request #${t.number} is not in the repository mirror`);
  }
  await release();
  const ensured = await ensureSandboxForThread({
    ...lifecycle,
    repo: `${t.owner}/${t.repo}`,
    log: opts.log,
    creationTimeoutMs: config.sandbox.createTimeoutMs,
    createOptions: { network: false, labels: { thread: t.threadId, repo: `${t.owner}/${t.repo}`, role: "reviewer" } },
  });
  try {
    const workspace = await prepareWorkspace({
      sandbox: ensured.sandbox,
      mirrorRoot: config.sandbox.mirrorRoot,
      mirror,
      ref,
      branch: `open-swe-review/pr-${t.number}`,
      publicUrl: `https://github.com/${t.owner}/${t.repo}.git`,
    });
    opts.log.info({ sandbox: ensured.sandbox.id, mode: workspace.mode, sha: workspace.sha, ms: Math.round(workspace.readyMs) }, "review workspace ready");
    return { sandbox: ensured.sandbox, workspace, release };
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
}
