import type { BaseMessage } from "@langchain/core/messages";
import { refuseUnlessWriter } from "./repo-rights.js";
import type { Hono } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { approvalStore } from "../approvals/handle-approval.js";
import { RunRecords } from "../store/run-records.js";
import { RunIndex, RunStatus, type RunEntry } from "../store/run-index.js";
import { RunStops } from "../runs/run-stop.js";
import { FollowUpQueue } from "../threads/follow-ups.js";
import { ThreadRepos } from "../threads/thread-repo.js";
import { threadSandboxKey } from "../sandbox/lifecycle.js";
import { conversationItems, readThread, usageSoFar, type Todo } from "./conversation.js";
import type { DashboardDeps, DashboardEnv } from "./dashboard-deps.js";
import type { Session } from "./session-store.js";
import { messagePage } from "./views/layout.js";
import { isLive, messageView, runEndView, runPage, todosView, usageView } from "./views/run-page.js";
import { runsPage } from "./views/runs-page.js";

export const PAGE_SIZE = 25;
/** While a run works its record does not exist yet: a turn is priced only by the model it reports. */
const UNKNOWN_MODEL = "unknown";
const POLL_MS = 400;

/** The run, if the viewer may see it (its repo is one they can write); otherwise null, answered as 404. */
export async function visibleRun(deps: DashboardDeps, session: Session, runId: string): Promise<RunEntry | null> {
  const entry = await new RunIndex(deps.redis, deps.prefix).get(runId);
  return entry && session.repos.includes(entry.repo) ? entry : null;
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

  app.get("/app", (c) => c.redirect("/app/runs", 302));

  app.get("/app/runs", async (c) => {
    const session = c.get("session");
    const q = c.req.query();
    const status = RunStatus.safeParse(q["status"]).success ? (q["status"] as RunStatus) : undefined;
    const repo = q["repo"] && session.repos.includes(q["repo"].toLowerCase()) ? q["repo"].toLowerCase() : undefined;
    const source = q["source"] && /^[a-z]{1,20}$/.test(q["source"]) ? q["source"] : undefined;
    const before = q["before"] && /^\d{1,16}$/.test(q["before"]) ? Number(q["before"]) : undefined;
    const page = await index.list({ repos: new Set(session.repos), ...(repo ? { repo } : {}), ...(status ? { status } : {}), ...(source ? { source } : {}) }, { size: PAGE_SIZE, ...(before !== undefined ? { before } : {}) });
    const rows = await Promise.all(page.entries.map(async (entry) => ({ entry, record: isLive(entry.status) ? null : await records.get(entry.runId) })));
    const nextHref = page.next === undefined ? null : `/app/runs?${new URLSearchParams({ ...(repo ? { repo } : {}), ...(status ? { status } : {}), ...(source ? { source } : {}), before: String(page.next) }).toString()}`;
    return c.html(runsPage(session, rows, { repo, status, source }, nextHref));
  });

  app.get("/app/runs/:id", async (c) => {
    const session = c.get("session");
    const entry = await visibleRun(deps, session, c.req.param("id"));
    if (!entry) return c.html(notFound(session), 404);
    const [thread, record] = await Promise.all([runThread(deps, entry), records.get(entry.runId)]);
    const items = conversationItems(thread.messages);
    // A run refused before it started (bad config, no model key) says why through its failed job.
    const failure = entry.status === "failed" ? ((await deps.queues.findJob("agent", entry.runId))?.failedReason ?? record?.error) : undefined;
    const sandbox = await deps.redis.get(threadSandboxKey(deps.prefix, entry.threadId));
    const approvalId = entry.status === "awaiting_approval" ? await approvalStore(deps).pendingFor(entry.threadId) : null;
    return c.html(runPage(session, entry, record, items, thread.todos, { failure, sandbox: thread.hidden ? null : sandbox, usage: usageSoFar(thread.messages, UNKNOWN_MODEL), approvalId, conversationHidden: thread.hidden }));
  });

  // Live view: new messages as the checkpoints are written, the status, and the end (PR link).
  app.get("/app/runs/:id/events", async (c) => {
    const session = c.get("session");
    const entry = await visibleRun(deps, session, c.req.param("id"));
    if (!entry) return c.text("run not found", 404);
    // A reconnecting EventSource says how far it got (Last-Event-ID: messages shown).
    let sent = Number(c.req.header("last-event-id") ?? c.req.query("from") ?? "0");
    if (!Number.isInteger(sent) || sent < 0) sent = 0;
    // Each stream polls Redis every POLL_MS: one viewer (or one address) may hold only so many.
    const grant = deps.liveStreams.acquire(c.get("sessionId"), getConnInfo(c).remote.address ?? "unknown");
    if (!grant.ok) return c.text(`too many live views: ${grant.reason}`, 429, { "retry-after": "30" });
    return streamSSE(c, releasing(grant.release, async (stream) => {
      let aborted = false;
      stream.onAbort(() => void (aborted = true));
      let lastStatus = "";
      let lastTodos = "";
      let lastUsage = "";
      // Bounded: the run ends, the viewer goes away, or a run's time limit (and then some) passes —
      // the browser's EventSource then reconnects and the stream starts over from what it has.
      const maxTicks = Math.ceil(((deps.config.env.AGENT_TIMEOUT_MINUTES + 10) * 60_000) / POLL_MS);
      for (let tick = 0; !aborted && tick < maxTicks; tick++) {
        const current = (await index.get(entry.runId)) ?? entry;
        const thread = await runThread(deps, entry);
        const items = conversationItems(thread.messages);
        if (items.length < sent) sent = items.length;
        for (const [i, item] of items.slice(sent).entries()) await stream.writeSSE({ event: "message", id: String(sent + i + 1), data: JSON.stringify({ html: String(await messageView(item)) }) });
        sent = items.length;
        const usage = usageView(usageSoFar(thread.messages, UNKNOWN_MODEL));
        if (usage !== lastUsage) await stream.writeSSE({ event: "usage", data: JSON.stringify({ text: usage }) });
        lastUsage = usage;
        const todos = String(await todosView(thread.todos));
        if (todos !== lastTodos) await stream.writeSSE({ event: "todos", data: JSON.stringify({ html: todos }) });
        lastTodos = todos;
        if (current.status !== lastStatus) await stream.writeSSE({ event: "status", data: JSON.stringify({ status: current.status }) });
        lastStatus = current.status;
        if (!isLive(current.status)) {
          const record = await records.get(entry.runId);
          await stream.writeSSE({ event: "done", data: JSON.stringify({ status: current.status, html: String(await runEndView(current, record)) }) });
          return;
        }
        if (tick % 30 === 29) await stream.writeSSE({ event: "ping", data: "{}" });
        await stream.sleep(POLL_MS);
      }
    }));
  });

  app.post("/app/runs/:id/stop", async (c) => {
    const session = c.get("session");
    const entry = await visibleRun(deps, session, c.req.param("id"));
    if (!entry) return c.html(notFound(session), 404);
    if (!isLive(entry.status)) return c.html(messagePage("Already ended", session, `This run already ended (${entry.status}).`, { href: `/app/runs/${encodeURIComponent(entry.runId)}`, label: "Back to the run" }), 409);
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
    const entry = await visibleRun(deps, session, c.req.param("id"));
    if (!entry) return c.html(notFound(session), 404);
    const text = (await c.req.parseBody())["text"];
    if (typeof text !== "string" || text.trim() === "" || text.length > 20_000) return c.html(messagePage("Nothing sent", session, "Write a message of at most 20,000 characters."), 400);
    if (!isLive(entry.status)) return c.html(messagePage("The run has ended", session, "This run has ended; start a new task to continue.", { href: "/app/tasks/new", label: "New task" }), 409);
    if (!(await threadIsRuns(deps, entry))) return c.html(messagePage("Nothing sent", session, `This run's thread now belongs to another repository than ${entry.repo}; start a new task to continue.`, { href: "/app/tasks/new", label: "New task" }), 409);
    const refused = await refuseUnlessWriter(c, deps, session, entry.repo, "the message was not sent");
    if (refused) return refused;
    await new FollowUpQueue(deps.redis, deps.prefix, deps.config.env.FOLLOW_UP_CAP).push(entry.threadId, { text: text.trim(), author: session.login, source: "dashboard", at: Date.now() });
    return c.redirect(`/app/runs/${encodeURIComponent(entry.runId)}`, 303);
  });
}
