import type { ApprovalPost, JobApprovals } from "../threads/approvals.js";
import type { RunSourceChannel } from "./source.js";
import type { SourceEventJob } from "../queue/schemas.js";
import type { JobContext, JobOutcome } from "../threads/job-context.js";
import type { SourceRegistry } from "./registry.js";
import { identityLogin, sourceIdentity } from "./source-identity.js";

/** A source run's approval request: with buttons where the source has them, the comment text as the fallback. */
export function sourceApprovalChannel(channel: RunSourceChannel): ApprovalPost {
  const { client, origin } = channel;
  if (client.approvalRequest) return { buttons: true, post: (text, id) => client.approvalRequest!(origin.ref, text, id) };
  return { post: (text) => client.reply(origin.ref, text) };
}

type ClickJob = SourceEventJob & { action: NonNullable<SourceEventJob["action"]> };

/**
 * An Approve / Deny click (queued by the web role, which verified the signature and called nothing):
 * the clicker's GitHub login by the same identity mapping as intake, then the one decision rule (`decideAndAnswer`).
 * A click whose approval is not one this conversation asked for is unknown.
 */
export async function handleSourceApprovalClick(data: ClickJob, ctx: JobContext & { sources: SourceRegistry }, approvals: JobApprovals): Promise<JobOutcome> {
  const source = ctx.sources.get(data.source)!;
  const client = source.client(ctx.log);
  const say = (text: string) => client.reply(data.ref, text);
  const { approvalId, decision } = data.action;
  const approval = await approvals.get(approvalId);
  const origin = approval?.job.source;
  if (!approval || !origin || origin.kind !== data.source || origin.ref.channel !== data.ref.channel || origin.threadKey !== data.threadKey) {
    await say(`I have no approval request \`${approvalId}\` in this conversation, so there is nothing to ${decision}.`);
    return { outcome: "approval_unknown", approvalId };
  }
  const octokit = await ctx.github.installation(approval.job.installationId);
  const identity = await sourceIdentity(ctx.settings, client, data.source, { id: data.user.id });
  const login = identity ? await identityLogin(identity, octokit) : null;
  if (!login) {
    ctx.log.info({ sourceUser: data.user.id, approvalId }, "approval click from a user with no GitHub identity: refused");
    await say(
      `I don't know who you are on GitHub, so your click on \`${approvalId}\` changed nothing. An operator can link you with \`open-swe settings identity set ${data.source}:${data.user.id} <github-login>\`.`,
    );
    return { outcome: "unmapped", sourceUser: data.user.id, approvalId };
  }
  // The conversation was checked above: any approval it asked for is in scope.
  const result = await approvals.decideAndAnswer(octokit, { approvalId, login, decision, inScope: () => true, where: "in this conversation", say });
  if (result.outcome === "approval_approved" || result.outcome === "approval_denied") {
    const done = `${result.outcome === "approval_approved" ? "Approved" : "Denied"} by @${login}: \`${approvalId}\` (${approval.calls.map((c) => `\`${c.name}\``).join(", ")}).`;
    await client.approvalDecided?.(data.ref, done).catch((err: unknown) => ctx.log.warn({ err: String(err), approvalId }, "could not update the approval message"));
  }
  return result;
}
