/**
 * The small grammar of a dismissing reply on one of our review threads. The reply's first line, after
 * an optional mention (`@open-swe`) and ignoring case, quotes and trailing punctuation, starts with one
 * of these phrases (followed by the end, punctuation or a space and a reason):
 *
 *   won't fix · wont fix · wontfix · not a bug · false positive · by design · working as intended ·
 *   intended · dismiss · dismissed · ignore this
 *
 * Anything else (a question, "will fix", "fixed") is not a dismissal.
 */
const PHRASES = ["won't fix", "wont fix", "wontfix", "not a bug", "false positive", "by design", "working as intended", "intended", "dismissed", "dismiss", "ignore this"];

export function isDismissalReply(text: string): boolean {
  const first = (text.split(/\r?\n/).find((l) => l.trim() !== "") ?? "").trim().toLowerCase().replace(/[’‘]/g, "'");
  const body = first.replace(/^@[\w-]+(\[bot\])?[,:]?\s+/, "").replace(/^["'*_`]+/, "");
  return PHRASES.some((p) => body === p || (body.startsWith(p) && /^[\s.,:;!—–"'*_`-]/.test(body.slice(p.length))));
}
