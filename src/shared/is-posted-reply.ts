/** A message as a conversation's listing returned it: who wrote it, its text, and when it was created (ms; NaN when unknown). */
export interface ListedMessage {
  author: string | null | undefined;
  text: string | null | undefined;
  createdAtMs: number;
}

/** Line ends, trailing spaces and a final newline are the vendor's to rewrite; the words and their order are not. */
const normalized = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * Whether a listed message is the reply a resumed run is about to post (pure): written by this app's own
 * identity (an exact id), with the same text, created at or after the run began. A person's message with the
 * same text, and an earlier run's identical reply, are not it.
 */
export function isPostedReply(listed: ListedMessage, want: { author: string; text: string; sinceMs: number }): boolean {
  if (!want.author || !listed.author || listed.author !== want.author) return false;
  if (!Number.isFinite(listed.createdAtMs) || !Number.isFinite(want.sinceMs) || listed.createdAtMs < want.sinceMs) return false;
  return typeof listed.text === "string" && normalized(listed.text) === normalized(want.text) && normalized(want.text) !== "";
}
