import { RunFeed, stepTimes } from "../store/run-feed.js";
import { RunIndex, type RunEntry } from "../store/run-index.js";
import { RunRecords } from "../store/run-records.js";
import { conversationItems, readThread, usageSoFar } from "./conversation.js";
import type { Redis } from "ioredis";
import type { RedisSaver } from "../agent/checkpoint/redis-saver.js";
import { isLive, messagesView, runEndView, todosView, usageView } from "./views/run-page.js";

/** While a run works its record does not exist yet: a turn is priced only by the model it reports. */
export const UNKNOWN_MODEL = "unknown";

/** What every viewer of a run is shown, read once per change per web process. */
export interface RunLiveState {
  status: string;
  ended: boolean;
  /** Each message of the conversation, rendered. */
  items: string[];
  usage: string;
  todos: string;
  /** The end of the run (status, PR link), rendered; "" while it runs. */
  end: string;
}

/** What one viewer has been sent so far. */
export interface ViewerSeen {
  sent: number;
  status: string;
  usage: string;
  todos: string;
}

export interface LiveEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * Pure: what a viewer who has seen `seen` is sent for `state`: the messages after the ones it has (each
 * with its count as the event id, which a reconnect sends back as Last-Event-ID), the usage, todos and
 * status when they changed, and the end.
 */
export function liveEvents(seen: ViewerSeen, state: RunLiveState): { events: LiveEvent[]; seen: ViewerSeen; done: boolean } {
  const events: LiveEvent[] = [];
  const from = Math.min(seen.sent, state.items.length);
  for (const [i, html] of state.items.slice(from).entries()) events.push({ event: "message", id: String(from + i + 1), data: JSON.stringify({ html }) });
  if (state.usage !== seen.usage) events.push({ event: "usage", data: JSON.stringify({ text: state.usage }) });
  if (state.todos !== seen.todos) events.push({ event: "todos", data: JSON.stringify({ html: state.todos }) });
  if (state.status !== seen.status) events.push({ event: "status", data: JSON.stringify({ status: state.status }) });
  if (state.ended) events.push({ event: "done", data: JSON.stringify({ status: state.status, html: state.end }) });
  return { events, seen: { sent: state.items.length, status: state.status, usage: state.usage, todos: state.todos }, done: state.ended };
}

/**
 * Reads a run's live state: its index entry, its thread's latest checkpoint (nothing while the thread is
 * another repository's — `threadIsRuns`, asked again at each read), the feed's step times, the record at
 * the end.
 */
export async function readLiveState(deps: { redis: Redis; prefix: string; checkpoints: RedisSaver }, entry: RunEntry, threadIsRuns: (e: RunEntry) => Promise<boolean>): Promise<RunLiveState> {
  const current = (await new RunIndex(deps.redis, deps.prefix).get(entry.runId)) ?? entry;
  const shown = await threadIsRuns(entry);
  const thread = shown ? await readThread(deps.checkpoints, entry.threadId) : { messages: [], todos: [] };
  const items = conversationItems(thread.messages);
  const times =
    items.length > 0
      ? stepTimes(
          await new RunFeed(deps.redis, deps.prefix).steps(entry.threadId),
          items.map((i) => i.kind),
        )
      : [];
  const ended = !isLive(current.status);
  return {
    status: current.status,
    ended,
    items: await Promise.all(messagesView(entry.runId, items, times).map(async (h) => String(await h))),
    usage: usageView(usageSoFar(thread.messages, UNKNOWN_MODEL)),
    todos: String(await todosView(thread.todos)),
    end: ended ? String(await runEndView(current, await new RunRecords(deps.redis, deps.prefix).get(entry.runId))) : "",
  };
}
