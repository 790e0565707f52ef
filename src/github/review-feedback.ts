import { parseCommand, stripNonRequestText } from "./command.js";

/** Words that ask for something to change (English; a review in another language is not read as one). */
const REQUEST = [
  /\b(?:please|pls|could you|can you|would you|you should|we should|should(?:n't| not)?|needs? to|must(?:n't| not)?|have to|has to|make sure|don't|do not|avoid|instead|rather than)\b/i,
  /\b(?:change|rename|remove|delete|drop|add|fix|move|extract|split|replace|use|handle|revert|update|simplify|refactor|document|test)\b/i,
  /\bnit\b|\?\s*$/im,
];
/** A review body that is only praise or approval. */
const PRAISE = /^(?:lgtm|looks good(?: to me)?|ship it|approved?|thanks?(?: you)?|thx|nice(?: work| one)?|great(?: work)?|👍|🚀|:shipit:|:\+1:|\W)*$/i;

/**
 * Pure: whether a submitted review is feedback a fix run should act on. Never a review whose body is a
 * command (a mention of the app: handled as one). "Changes requested" otherwise always is; a comment or
 * an approval is when its body asks for a change (not praise, not an empty body).
 */
export function isReviewFeedback(review: { state: string; body: string | null | undefined }, handles: readonly string[]): boolean {
  const state = review.state.toLowerCase();
  const body = review.body ?? "";
  // A command runs as one, whatever the review's state: read as feedback too, it would start a second run.
  if (parseCommand(body, handles) !== null) return false;
  if (state === "changes_requested") return true;
  if (state !== "commented" && state !== "approved") return false;
  const text = stripNonRequestText(body).trim();
  if (text === "" || PRAISE.test(text)) return false;
  const cues = REQUEST.filter((re) => re.test(text)).length;
  // A question alone or a verb alone is weak; commenting asks for a change with a cue, approving needs two.
  return state === "commented" ? cues >= 1 : cues >= 2;
}
