import { UnrecoverableError } from "bullmq";
import type { Octokit } from "../github/app-auth.js";
import { GitHubUnreachableError } from "../github/permission.js";
import type { RunSourceChannel } from "./source.js";
import type { AgentJob } from "../queue/schemas.js";
import { jobHasWriteAccess } from "../github/authorize.js";
import type { JobContext } from "../threads/job-context.js";
import { INTAKE_REPLIES } from "./intake-replies.js";
import type { SourceRegistry } from "./registry.js";

/** Where a non-GitHub agent job answers; null for a GitHub job. A source missing from this worker cannot run it. */
export function sourceChannel(ctx: Pick<JobContext, "log"> & { sources: SourceRegistry }, data: AgentJob): RunSourceChannel | null {
  const origin = data.source;
  if (origin.kind === "github") return null;
  const source = ctx.sources.get(origin.kind);
  if (!source) throw new UnrecoverableError(`source ${origin.kind} is not available in this worker`);
  return { origin, client: source.client(ctx.log) };
}

/** The agent job's own write-access check for a source request (wake-ups and continuations run it again too). */
export async function authorizeSourceRun(ctx: JobContext, octokit: Octokit, data: AgentJob, channel: RunSourceChannel): Promise<boolean> {
  let allowed: boolean;
  try {
    allowed = await jobHasWriteAccess(ctx, octokit, { owner: data.owner, repo: data.repo, login: data.requester.login });
  } catch (err) {
    if (!(err instanceof GitHubUnreachableError)) throw err;
    await channel.client.reply(channel.origin.ref, INTAKE_REPLIES.githubUnreachable()).catch(() => undefined);
    throw new UnrecoverableError(err.message);
  }
  if (!allowed) {
    ctx.log.info({ login: data.requester.login }, "source requester lacks write access: refused");
    await channel.client.reply(channel.origin.ref, INTAKE_REPLIES.notWriter(data.requester.login, `${data.owner}/${data.repo}`));
  }
  return allowed;
}
