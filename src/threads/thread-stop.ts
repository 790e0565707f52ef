import type { Redis } from "ioredis";
import { z } from "zod";
import { keyer } from "../store/keys.js";
import type { FollowUpQueue } from "./follow-ups.js";

/** What the next run on a thread learns about the run that was stopped before it. */
export const ThreadStop = z.object({
  runId: z.string().min(1),
  by: z.string().nullable(),
  at: z.number().int(),
  dropped: z.number().int().min(0),
});
export type ThreadStop = z.infer<typeof ThreadStop>;

const key = (prefix: string, threadId: string) => keyer(`${prefix}:thread-stop`)(threadId);

/**
 * Stop ends the work, not only the run: the thread's pending follow-ups are dropped (so no continuation
 * redoes what was stopped) and a marker tells the next run on the thread that the one before it was
 * stopped. Called while the stopped run still holds the thread's lock. Returns the marker.
 */
export async function endStoppedWork(redis: Redis, prefix: string, followUps: FollowUpQueue, threadId: string, stop: { runId: string; by: string | null }, now = Date.now()): Promise<ThreadStop> {
  const items = await followUps.drain(threadId);
  const marker = ThreadStop.parse({ ...stop, at: now, dropped: items.length });
  await redis.set(key(prefix, threadId), JSON.stringify(marker), "EX", 7 * 86400);
  return marker;
}

/** The marker left by a stopped run, read once: the first run after the stop says so, the next ones do not. */
export async function takeThreadStop(redis: Redis, prefix: string, threadId: string): Promise<ThreadStop | null> {
  const raw = await redis.getdel(key(prefix, threadId));
  return raw ? ThreadStop.parse(JSON.parse(raw)) : null;
}

const messages = (n: number) => `${n} message${n === 1 ? "" : "s"}`;

/** Pure: what the stopped run's reply and page say about the work it ended. */
export function stoppedWorkNote(stop: Pick<ThreadStop, "by" | "dropped">): string {
  const who = stop.by ? ` by @${stop.by}` : "";
  const dropped = stop.dropped > 0 ? ` ${messages(stop.dropped)} sent while it ran ${stop.dropped === 1 ? "was" : "were"} dropped, and nothing continues it.` : " Nothing continues it.";
  return `Stopped${who}.${dropped} A new message starts a new run on this thread.`;
}

/** Pure: the line the first run after a stop reads before its request. */
export function afterStopLine(stop: Pick<ThreadStop, "by" | "dropped">): string {
  const who = stop.by ? ` by @${stop.by}` : "";
  const dropped = stop.dropped > 0 ? ` ${messages(stop.dropped)} sent to it ${stop.dropped === 1 ? "was" : "were"} dropped unread.` : "";
  return `Note: the previous run on this thread was stopped${who} before it finished.${dropped} Do not resume or redo its work unless the request below asks for it.`;
}
