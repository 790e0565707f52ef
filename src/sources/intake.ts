import { UnrecoverableError } from "bullmq";
import { GitHubUnreachableError } from "../github/permission.js";
import { jobId } from "../queue/job-ids.js";
import type { SourceEventJob } from "../queue/schemas.js";
import { jobHasWriteAccess } from "../github/authorize.js";
import type { JobContext, JobOutcome } from "../threads/job-context.js";
import type { SourceRegistry } from "./registry.js";
import { INTAKE_REPLIES } from "./intake-replies.js";
import { chooseRepo } from "./resolve-repo.js";
import { handleSourceApprovalClick } from "./source-approval.js";
import type { JobApprovals } from "../threads/approvals.js";
import { identityLogin, sourceIdentity } from "./source-identity.js";
import type { SourceClient } from "./source.js";
import { ThreadRepos } from "../threads/thread-repo.js";

/** The agent job a source event becomes: one per event, whatever redelivered it. */
export function sourceRunJobId(source: string, dedupeKey: string): string {
  return jobId("src-run", source, dedupeKey);
}

async function installationFor(ctx: JobContext, repo: string): Promise<number | null> {
  const recorded = (await ctx.settings.listInstalled())[repo];
  if (recorded) return recorded.installationId;
  const [owner, name] = repo.split("/") as [string, string];
  return ctx.github.repoInstallation(owner, name);
}

/**
 * A verified mention from a source, in the worker: re-read it with our credentials (payload claims are
 * not trusted) → the author's GitHub login → the repository → write access → acknowledge → one agent
 * job (a busy thread's run gets it as a follow-up). Anything that stops it gets one reply.
 */
export async function handleSourceEvent(data: SourceEventJob, ctx: JobContext & { sources: SourceRegistry }, approvals: JobApprovals): Promise<JobOutcome> {
  const source = ctx.sources.get(data.source);
  if (!source) throw new UnrecoverableError(`source ${data.source} is not available in this worker`);
  if (data.action) return handleSourceApprovalClick({ ...data, action: data.action }, ctx, approvals);
  const client: SourceClient = source.client(ctx.log);
  const message = await client.fetchMessage(data.ref);
  if (!message) return { outcome: "message_gone" };
  // What the re-read says about where the message is beats what an unsigned payload claimed.
  const where = message.conversation ?? { ref: data.ref, threadKey: data.threadKey, ...(data.repoDefaultKey ? { repoDefaultKey: data.repoDefaultKey } : {}) };
  const say = async (text: string) => client.reply(where.ref, text);

  const unmapped = async () => {
    ctx.log.info({ sourceUser: message.user.id }, "source user has no GitHub identity: refused");
    await say(INTAKE_REPLIES.unmapped(data.source, message.user.id));
    return { outcome: "unmapped", sourceUser: message.user.id };
  };
  // No mapping: a confirmed email may still match a GitHub account's public email (looked up below, with the repo's installation).
  const identity = await sourceIdentity(ctx.settings, client, data.source, message.user);
  if (!identity) return unmapped();

  const threadRepos = new ThreadRepos(ctx.redis, ctx.prefix);
  const [remembered, channelDefault] = await Promise.all([threadRepos.conversationRepo(where.threadKey), where.repoDefaultKey ? ctx.settings.getSourceRepo(where.repoDefaultKey) : null]);
  const choice = chooseRepo({ text: message.text, remembered, channelDefault });
  if (!choice) {
    await say(INTAKE_REPLIES.askRepo());
    return { outcome: "repo_unknown" };
  }
  const installationId = await installationFor(ctx, choice.repo);
  if (installationId === null) {
    await say(INTAKE_REPLIES.notInstalled(choice.repo));
    return { outcome: "not_installed", repo: choice.repo };
  }
  const [owner, repo] = choice.repo.split("/") as [string, string];
  const octokit = await ctx.github.installation(installationId);
  const login = await identityLogin(identity, octokit);
  if (!login) return unmapped();
  let allowed: boolean;
  try {
    allowed = await jobHasWriteAccess(ctx, octokit, { owner, repo, login });
  } catch (err) {
    if (!(err instanceof GitHubUnreachableError)) throw err;
    await say(INTAKE_REPLIES.githubUnreachable()).catch(() => undefined);
    throw new UnrecoverableError(err.message);
  }
  if (!allowed) {
    ctx.log.info({ login, repo: choice.repo }, "source requester lacks write access: refused");
    await say(INTAKE_REPLIES.notWriter(login, choice.repo));
    return { outcome: "refused", login, repo: choice.repo };
  }
  const user = await octokit.request("GET /users/{username}", { username: login });
  // A thread belongs to one repository: naming another one in the conversation starts another thread.
  const placed = await threadRepos.place(where.threadKey, choice.repo);
  const thread = placed.threadId;
  const switched = placed.created && placed.previousRepo !== null && placed.previousRepo !== choice.repo;
  if (switched) {
    ctx.log.info({ from: placed.previousRepo, repo: choice.repo, threadId: thread }, "source conversation names another repository: a new thread");
    await say(INTAKE_REPLIES.newThread(placed.previousRepo!, choice.repo));
  }
  await client.acknowledge(where.ref).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "could not acknowledge the request"));
  const id = sourceRunJobId(data.source, data.dedupeKey);
  await ctx.queues.add(
    "agent",
    {
      installationId,
      owner,
      repo,
      // The earlier messages belong to the other repository's thread: a new thread starts without them.
      source: { kind: data.source, ref: where.ref, threadKey: where.threadKey, ...(message.context && !switched ? { context: message.context } : {}) },
      threadId: thread,
      trigger: "comment",
      requester: { login: user.data.login, id: Number(user.data.id) },
      text: message.text,
      deliveryId: `${data.source}-${data.dedupeKey}`,
    },
    id,
    { via: data.source },
  );
  ctx.log.info({ jobId: id, repo: choice.repo, via: choice.via, threadId: thread }, "source request queued as an agent job");
  return { outcome: "queued", agentJob: id, repo: choice.repo, via: choice.via, threadId: thread, newThread: switched, login, identity: "login" in identity ? "settings" : "email" };
}
