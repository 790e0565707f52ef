import { hasMention, stripNonRequestText } from "../../github/command.js";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether a Linear comment mentions the app: `@handle` as typed, or the profile link Linear writes
 * for a picked mention (`[@Open SWE](https://linear.app/<org>/profiles/<handle>)`). Code and quotes
 * are someone else's words, as on GitHub.
 */
export function mentionsLinearApp(body: string, handles: readonly string[]): boolean {
  if (handles.length === 0) return false;
  if (hasMention(body, handles)) return true;
  const alts = handles.map(escape).join("|");
  return new RegExp(`https://linear\\.app/[\\w-]+/profiles/(${alts})(?![\\w-])`, "i").test(stripNonRequestText(body));
}
