export type Command =
  | { kind: "task"; text: string }
  | { kind: "review"; instructions: string; verdictRequested: boolean }
  | { kind: "autofix"; enabled: boolean }
  | { kind: "help"; reason: string };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Code blocks, inline code and quoted lines are someone else's words: a mention there is not a request. */
export function stripNonRequestText(body: string): string {
  if (!/[`~>]/.test(body)) return body;
  return body
    .replace(/```[\s\S]*?(```|$)/g, " ")
    .replace(/~~~[\s\S]*?(~~~|$)/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .split(/\r?\n/)
    .filter((line) => !/^\s*>/.test(line))
    .join("\n");
}

const patterns = new Map<string, RegExp>();

export function mentionPattern(handles: readonly string[]): RegExp {
  const key = handles.join(",");
  let re = patterns.get(key);
  if (!re) patterns.set(key, (re = buildMentionPattern(handles)));
  return re;
}

function buildMentionPattern(handles: readonly string[]): RegExp {
  const alts = [...handles].sort((a, b) => b.length - a.length).map(escape).join("|");
  // Not preceded by a word char, @, / or . (emails, URLs); not followed by a word char or '-'
  // so that @openswe-preview never matches @openswe.
  return new RegExp(`(?<![\\w@/.-])@(${alts})(?![\\w-])`, "i");
}

export function hasMention(body: string, handles: readonly string[]): boolean {
  return mentionPattern(handles).test(stripNonRequestText(body));
}

const ON = new Set(["on", "enable", "enabled", "true", "yes"]);
const OFF = new Set(["off", "disable", "disabled", "false", "no"]);
const VERDICT_FLAGS = new Set(["--verdict", "--approve-or-request-changes"]);

/**
 * Parses the first mention of the app in a comment into a command; null when the app is not mentioned.
 *
 *   @open-swe <task…>                         → task
 *   @open-swe review [--verdict] [notes…]     → review (a verdict only with --verdict)
 *   @open-swe autofix on|off                  → per-PR autofix toggle
 *   @open-swe / @open-swe help                → help
 */
export function parseCommand(body: string, handles: readonly string[]): Command | null {
  const text = stripNonRequestText(body);
  const match = mentionPattern(handles).exec(text);
  if (!match) return null;
  const rest = text
    .slice(match.index + match[0].length)
    .replace(/^[\s,:;.!?]+/, "")
    .trim();
  const words = /^(\S*)(?:\s+(\S+))?(?:\s+(\S+))?/.exec(rest)!;
  const first = words[1] ?? "";
  const second = words[2];
  const word = first.toLowerCase().replace(/[,:;.!?]+$/, "");

  if (word === "review" || word === "re-review") {
    const args = rest.slice(first.length).trim();
    const tokens = args.split(/\s+/).filter(Boolean);
    const verdictRequested = tokens.some((t) => VERDICT_FLAGS.has(t.toLowerCase()));
    const instructions = tokens.filter((t) => !VERDICT_FLAGS.has(t.toLowerCase())).join(" ");
    return { kind: "review", instructions, verdictRequested };
  }
  if (word === "autofix" || word === "auto-fix") {
    const arg = (second ?? "").toLowerCase().replace(/[,:;.!?]+$/, "");
    if (ON.has(arg)) return { kind: "autofix", enabled: true };
    if (OFF.has(arg)) return { kind: "autofix", enabled: false };
    return { kind: "help", reason: `\`autofix\` takes \`on\` or \`off\`${arg ? `, not \`${arg}\`` : ""}.` };
  }
  if (word === "help" && second === undefined) return { kind: "help", reason: "" };
  if (rest) return { kind: "task", text: rest };
  const before = text.slice(0, match.index).trim();
  if (before) return { kind: "task", text: before };
  return { kind: "help", reason: "The mention had no request in it." };
}
