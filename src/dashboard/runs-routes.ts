import type { BaseMessage } from "@langchain/core/messages";
import { refuseUnlessWriter, repoReadNow } from "./repo-rights.js";
import type { Context, Hono } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { RunRecords } from "../store/run-records.js";
import { RunIndex, RunStatus, type RunEntry } from "../store/run-index.js";
import { RunStops } from "../store/run-stop.js";
import { FollowUpQueue, followUpRefusedText } from "../threads/follow-ups.js";
import { ThreadRepos } from "../threads/thread-repo.js";
import { threadSandboxKey } from "../sandbox/lifecycle.js";
import { conversationItems, fullText, readThread, usageSoFar, type Todo } from "./conversation.js";
import { liveEvents, readLiveState, UNKNOWN_MODEL, type ViewerSeen } from "./live-view.js";
import { RunFeed, stepTimes } from "../store/run-feed.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import type { Session } from "./session-store.js";
import { messagePage } from "./views/layout.js";
import { isLive, runPage } from "./views/run-page.js";
import { runsPage } from "./views/runs-page.js";
import { prHealthView } from "./views/pr-health-view.js";
import { readPushedDiff } from "./pushed-diff.js";
import { pushedDiffView } from "./views/diff-view.js";
import { readSubagents } from "./subagents.js";
import { subagentsView } from "./views/subagents-view.js";

export const PAGE_SIZE = 25;
/** A quiet stream says it is alive this often (no Redis read: proxies close silent connections). */
const PING_MS = 25_000;

/**
 * The run, if the viewer may see it: its repo is one of their session's (writable at sign-in) and
 * GitHub says they may still read it now (`repoReadNow`, cached at most 5 minutes); otherwise null,
 * answered as 404, or "unreachable" when GitHub did not answer (503: never said as "no access").
 */
export async function visibleRun(deps: DashboardDeps, session: Session, runId: string): Promise<RunEntry | null | "unreachable"> {
  const entry = await new RunIndex(deps.redis, deps.prefix).get(runId);
  if (!entry || !session.repos.includes(entry.repo)) return null;
  const right = await repoReadNow(deps, session.login, entry.repo, session.installations[entry.repo]);
  if (right === "read") return entry;
  if (right === "unreachable") {
    deps.log.warn({ login: session.login, repo: entry.repo, runId }, "dashboard read refused: GitHub unreachable for the read-access check");
    return "unreachable";
  }
  deps.log.info({ login: session.login, repo: entry.repo, runId }, "dashboard read refused: no read access now");
  return null;
}

/**
 * Is the run's thread still its repository's? A thread belongs to one repository; one from before that
 * (a source conversation shared by several) may since have been another repository's, and its
 * checkpoint, todos and follow-ups then are not this run's to show or feed. No record: a GitHub thread,
 * per repository by its key.
 */
export async function threadIsRuns(deps: DashboardDeps, entry: RunEntry): Promise<boolean> {
  const repo = await new ThreadRepos(deps.redis, deps.prefix).get(entry.threadId);
  return repo === null || repo === entry.repo.toLowerCase();
}

/** The run's conversation: its thread's checkpoint, or nothing when the thread is another repository's. */
async function runThread(deps: DashboardDeps, entry: RunEntry): Promise<{ messages: BaseMessage[]; todos: Todo[]; hidden: boolean }> {
  if (!(await threadIsRuns(deps, entry))) return { messages: [], todos: [], hidden: true };
  return { ...(await readThread(deps.checkpoints, entry.threadId)), hidden: false };
}

/**
 * One viewer's stream: joins the run's shared subscription, is sent what it has not seen at each change,
 * pings while quiet, and ends with the run, when the viewer leaves, or after a run's time limit (and then
 * some) — the EventSource then reconnects from its Last-Event-ID.
 */
async function followRun(deps: DashboardDeps, entry: RunEntry, sent: number, stream: SSEStreamingApi): Promise<void> {
  let seen: ViewerSeen = { sent, status: "", usage: "", todos: "" };
  let finished = false;
  let aborted = false;
  let wake: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (wake = resolve));
  const finish = () => {
    finished = true;
    wake();
  };
  stream.onAbort(() => {
    aborted = true;
    finish();
  });
  let writing = Promise.resolve();
  const leave = await deps.live.join(
    entry.runId,
    new RunFeed(deps.redis, deps.prefix).channel(entry.threadId),
    () => readLiveState(deps, entry, (e) => threadIsRuns(deps, e)),
    (state) => {
      // Each viewer writes in order; a slow one does not hold up the others.
      writing = writing.then(async () => {
        if (finished) return;
        const next = liveEvents(seen, state);
        seen = next.seen;
        for (const e of next.events) await stream.writeSSE(e);
        if (next.done) finish();
      });
    },
  );
  try {
    const deadline = Date.now() + (deps.config.env.AGENT_TIMEOUT_MINUTES + 10) * 60_000;
    while (!finished && Date.now() < deadline) {
      await Promise.race([ended, stream.sleep(PING_MS)]);
      if (!finished) await stream.writeSSE({ event: "ping", data: "{}" });
    }
    // The end is written before the stream closes; a viewer who left is written nothing more.
    if (!aborted) await writing;
  } finally {
    leave();
  }
}

/** The stream's body, with its live-view grant given back once when it ends or the viewer leaves. */
function releasing(release: () => void, body: (stream: SSEStreamingApi) => Promise<void>) {
  return async (stream: SSEStreamingApi): Promise<void> => {
    stream.onAbort(release);
    try {
      await body(stream);
    } finally {
      release();
    }
  };
}

export function mountRuns(app: Hono<DashboardEnv>, deps: DashboardDeps): void {
  const index = new RunIndex(deps.redis, deps.prefix);
  const records = new RunRecords(deps.redis, deps.prefix);
  const notFound = (session: Session) => messagePage("Run not found", session, "There is no such run in the repositories you can write to.", { href: "/app/runs", label: "All runs" });

  /** The run the route names, or the answer when the viewer may not see it now (a page, or plain text for the live stream). */
  const runOr = async (c: Context<DashboardEnv>, as: "page" | "text" = "page"): Promise<RunEntry | Response> => {
    const session = c.get("session");
    const found = await visibleRun(deps, session, c.req.param("id") ?? "");
    if (found === "unreachable") {
      const why = "GitHub did not answer when asked whether you can read this run's repository, so it is not shown. Try again in a minute.";
      return as === "text" ? c.text(`GitHub could not be reached: ${why}`, 503) : c.html(messagePage("GitHub could not be reached", session, why, { href: "/app/runs", label: "All runs" }), 503);
    }
    if (!found) return as === "text" ? c.text("run not found", 404) : c.html(notFound(session), 404);
    return found;
  };

  app.get("/app", (c) => c.redirect("/app/runs", 302));

  app.get("/app/runs", async (c) => {
    const session = c.get("session");
    const q = c.req.query();
    const status = RunStatus.safeParse(q["status"]).success ? (q["status"] as RunStatus) : undefined;
    const repo = q["repo"] && session.repos.includes(q["repo"].toLowerCase()) ? q["repo"].toLowerCase() : undefined;
    const source = q["source"] && /^[a-z]{1,20}$/.test(q["source"]) ? q["source"] : undefined;
    const before = q["before"] && /^\d{1,16}$/.test(q["before"]) ? Number(q["before"]) : undefined;
    const page = await index.list(
      { repos: new Set(session.repos), ...(repo ? { repo } : {}), ...(status ? { status } : {}), ...(source ? { source } : {}) },
      { size: PAGE_SIZE, ...(before !== undefined ? { before } : {}) },
    );
    const rows = await Promise.all(page.entries.map(async (entry) => ({ entry, record: isLive(entry.status) ? null : await records.get(entry.runId) })));
    const nextHref =
      page.next === undefined
        ? null
        : `/app/runs?${new URLSearchParams({ ...(repo ? { repo } : {}), ...(status ? { status } : {}), ...(source ? { source } : {}), before: String(page.next) }).toString()}`;
    return c.html(runsPage(session, rows, { repo, status, source }, nextHref));
  });

  app.get("/app/runs/:id", async (c) => {
    const session = c.get("session");
    const entry = await runOr(c);
    if (entry instanceof Response) return entry;
    const [thread, record] = await Promise.all([runThread(deps, entry), records.get(entry.runId)]);
    const items = conversationItems(thread.messages);
    const times =
      items.length > 0
        ? stepTimes(
            await new RunFeed(deps.redis, deps.prefix).steps(entry.threadId),
            items.map((i) => i.kind),
          )
        : [];
    // A run refused before it started (bad config, no model key) says why through its failed job.
    const failure = entry.status === "failed" ? ((await deps.queues.findJob("agent", entry.runId))?.failedReason ?? record?.error) : undefined;
    const sandbox = await deps.redis.get(threadSandboxKey(deps.prefix, entry.threadId));
    const approvalId = entry.status === "awaiting_approval" ? await deps.approvals.pendingFor(entry.threadId) : null;
    const prHealth = record?.prUrl ? prHealthView(await deps.prHealth.get(deps, record.prUrl, session.installations[entry.repo])) : undefined;
    const subagents = subagentsView(entry.runId, thread.hidden ? [] : await readSubagents(deps.checkpoints, entry.threadId, thread.messages));
    const diff = pushedDiffView(await readPushedDiff(deps.config.sandbox.mirrorRoot, entry.repo, record?.pushedSha));
    return c.html(
      runPage(session, entry, record, items, thread.todos, {
        failure,
        sandbox: thread.hidden ? null : sandbox,
        usage: usageSoFar(thread.messages, UNKNOWN_MODEL),
        approvalId,
        conversationHidden: thread.hidden,
        times,
        diff,
        subagents,
        ...(prHealth ? { prHealth } : {}),
      }),
    );
  });

  // Live view: the run's messages, usage, todos and status as the worker publishes them; one shared
  // subscription per run in this process, nothing read while the run is idle.
  app.get("/app/runs/:id/events", async (c) => {
    const entry = await runOr(c, "text");
    if (entry instanceof Response) return entry;
    // A reconnecting EventSource says how far it got (Last-Event-ID: messages shown).
    let sent = Number(c.req.header("last-event-id") ?? c.req.query("from") ?? "0");
    if (!Number.isInteger(sent) || sent < 0) sent = 0;
    // One viewer (or one address) may hold only so many open streams.
    const grant = deps.liveStreams.acquire(c.get("sessionId"), getConnInfo(c).remote.address ?? "unknown");
    if (!grant.ok) return c.text(`too many live views: ${grant.reason}`, 429, { "retry-after": "30" });
    return streamSSE(
      c,
      releasing(grant.release, (stream) => followRun(deps, entry, sent, stream)),
    );
  });

  // "show all": the whole text of one message (a long tool output or tool call), as plain text.
  app.get("/app/runs/:id/messages/:n", async (c) => {
    const session = c.get("session");
    const entry = await runOr(c);
    if (entry instanceof Response) return entry;
    const n = Number(c.req.param("n"));
    if (!Number.isInteger(n) || n < 0) return c.html(notFound(session), 404);
    const thread = await runThread(deps, entry);
    const text = thread.hidden ? null : fullText(thread.messages, n);
    if (text === null)
      return c.html(messagePage("Message not found", session, `This run's conversation has no message ${n}.`, { href: `/app/runs/${encodeURIComponent(entry.runId)}`, label: "Back to the run" }), 404);
    return c.text(text, 200, { "content-type": "text/plain; charset=utf-8" });
  });

  // "show all" of a message in one of the run's subagents' conversations.
  app.get("/app/runs/:id/subagents/:k/messages/:n", async (c) => {
    const session = c.get("session");
    const entry = await runOr(c);
    if (entry instanceof Response) return entry;
    const k = Number(c.req.param("k"));
    const n = Number(c.req.param("n"));
    if (!Number.isInteger(k) || k < 0 || !Number.isInteger(n) || n < 0) return c.html(notFound(session), 404);
    const thread = await runThread(deps, entry);
    const subagent = thread.hidden ? undefined : (await readSubagents(deps.checkpoints, entry.threadId, thread.messages))[k];
    const text = subagent ? fullText(subagent.messages, n) : null;
    if (text === null)
      return c.html(
        messagePage("Message not found", session, `This run has no subagent ${k} with a message ${n}.`, { href: `/app/runs/${encodeURIComponent(entry.runId)}`, label: "Back to the run" }),
        404,
      );
    return c.text(text, 200, { "content-type": "text/plain; charset=utf-8" });
  });

  app.post("/app/runs/:id/stop", async (c) => {
    const session = c.get("session");
    const entry = await runOr(c);
    if (entry instanceof Response) return entry;
    if (!isLive(entry.status))
      return c.html(messagePage("Already ended", session, `This run already ended (${entry.status}).`, { href: `/app/runs/${encodeURIComponent(entry.runId)}`, label: "Back to the run" }), 409);
    const refused = await refuseUnlessWriter(c, deps, session, entry.repo, "the run was not stopped");
    if (refused) return refused;
    await new RunStops(deps.redis, deps.prefix).request(entry.runId, session.login);
    await index.update(entry.runId, { stoppedBy: session.login });
    // Still waiting in the queue: take it out; a running one is cancelled by its worker.
    const job = await deps.queues.findJob("agent", entry.runId);
    const state = job ? await job.getState() : "unknown";
    if (job && (state === "waiting" || state === "delayed" || state === "prioritized")) {
      await job.remove();
      await index.update(entry.runId, { status: "stopped", finishedAt: Date.now() });
    }
    deps.log.info({ runId: entry.runId, login: session.login, state }, "dashboard: stop requested");
    return c.redirect(`/app/runs/${encodeURIComponent(entry.runId)}`, 303);
  });

  app.post("/app/runs/:id/messages", async (c) => {
    const session = c.get("session");
    const entry = await runOr(c);
    if (entry instanceof Response) return entry;
    const text = (await c.req.parseBody())["text"];
    if (typeof text !== "string" || text.trim() === "" || text.length > 20_000) return c.html(messagePage("Nothing sent", session, "Write a message of at most 20,000 characters."), 400);
    if (!isLive(entry.status)) return c.html(messagePage("The run has ended", session, "This run has ended; start a new task to continue.", { href: "/app/tasks/new", label: "New task" }), 409);
    if (!(await threadIsRuns(deps, entry)))
      return c.html(
        messagePage("Nothing sent", session, `This run's thread now belongs to another repository than ${entry.repo}; start a new task to continue.`, { href: "/app/tasks/new", label: "New task" }),
        409,
      );
    const refused = await refuseUnlessWriter(c, deps, session, entry.repo, "the message was not sent");
    if (refused) return refused;
    const followUps = new FollowUpQueue(deps.redis, deps.prefix, deps.config.env.FOLLOW_UP_CAP, deps.queues.signer, deps.log);
    const { queued } = await followUps.push(entry.threadId, { text: text.trim(), author: session.login, source: "dashboard", at: Date.now() });
    if (!queued) return c.html(messagePage("Nothing sent", session, followUpRefusedText(followUps.cap)), 429);
    return c.redirect(`/app/runs/${encodeURIComponent(entry.runId)}`, 303);
  });
}
