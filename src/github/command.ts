/** `--model <id>` (or `--model=<id>`) before the request: the thread's model from now on. */
export type Command =
  | { kind: "task"; text: string; verdictRequested?: true; model?: string }
  | { kind: "review"; instructions: string; verdictRequested: boolean; model?: string }
  | { kind: "autofix"; enabled: boolean }
  | { kind: "fix_ci"; allowTestConfig?: true }
  | { kind: "autofix_status" }
  | { kind: "approval"; decision: "approve" | "deny"; id: string; reason?: string }
  | { kind: "help"; reason: string };

/** `fix ci --allow-test-config`: the one flag that lets a CI fix change test configuration. */
export const ALLOW_TEST_CONFIG = "--allow-test-config";

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
  const alts = [...handles]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");
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
const isVerdictFlag = (t: string) => VERDICT_FLAGS.has(t.toLowerCase());
const MODEL_OPTION = /^--model(?:=(\S+)|\s+(\S+))\s*/i;

/** Leading `--model <id>` / `--verdict` options; the rest is the request. */
function leadingOptions(text: string): { rest: string; model?: string; verdict: boolean } {
  let rest = text;
  let model: string | undefined;
  let verdict = false;
  for (;;) {
    const m = MODEL_OPTION.exec(rest);
    if (m) {
      model = m[1] ?? m[2];
      rest = rest.slice(m[0].length);
      continue;
    }
    const flag = /^(\S+)\s*/.exec(rest);
    if (flag && isVerdictFlag(flag[1]!)) {
      verdict = true;
      rest = rest.slice(flag[0].length);
      continue;
    }
    return { rest: rest.trim(), verdict, ...(model ? { model } : {}) };
  }
}

/**
 * Parses the first mention of the app in a comment into a command; null when the app is not mentioned.
 *
 *   @open-swe [--model <id>] <task…>          → task (`--verdict` anywhere: its review may carry a verdict)
 *   @open-swe review [--model <id>] [--verdict] [notes…] → review (a verdict only with --verdict)
 *   @open-swe autofix on|off                  → per-PR autofix toggle (alone: its state and why)
 *   @open-swe fix ci                          → one fix run for this PR's failing checks
 *   @open-swe fix ci --allow-test-config      → the same, allowed to change how tests are selected or run
 *   @open-swe approve <id> / deny <id> [reason] → a decision on a paused run's approval request
 *   @open-swe / @open-swe help                → help
 */
export function parseCommand(body: string, handles: readonly string[]): Command | null {
  const text = stripNonRequestText(body);
  const match = mentionPattern(handles).exec(text);
  if (!match) return null;
  const options = leadingOptions(
    text
      .slice(match.index + match[0].length)
      .replace(/^[\s,:;.!?]+/, "")
      .trim(),
  );
  const rest = options.rest;
  const model = options.model ? { model: options.model } : {};
  const words = /^(\S*)(?:\s+(\S+))?(?:\s+(\S+))?/.exec(rest)!;
  const first = words[1] ?? "";
  const second = words[2];
  const third = words[3];
  const word = first.toLowerCase().replace(/[,:;.!?]+$/, "");

  if (word === "review" || word === "re-review") {
    const args = leadingOptions(rest.slice(first.length).trim());
    const tokens = args.rest.split(/\s+/).filter(Boolean);
    const verdictRequested = options.verdict || args.verdict || tokens.some(isVerdictFlag);
    const instructions = tokens.filter((t) => !isVerdictFlag(t)).join(" ");
    const reviewModel = args.model ?? options.model;
    return { kind: "review", instructions, verdictRequested, ...(reviewModel ? { model: reviewModel } : {}) };
  }
  if (word === "autofix" || word === "auto-fix") {
    const arg = (second ?? "").toLowerCase().replace(/[,:;.!?]+$/, "");
    if (ON.has(arg)) return { kind: "autofix", enabled: true };
    if (OFF.has(arg)) return { kind: "autofix", enabled: false };
    if (!arg) return { kind: "autofix_status" };
    return { kind: "help", reason: `\`autofix\` takes \`on\` or \`off\`${arg ? `, not \`${arg}\`` : ""}.` };
  }
  // `approve <8-hex id>` only: `approve the migration plan` stays a task.
  if ((word === "approve" || word === "deny") && second !== undefined && /^[0-9a-f]{8}$/i.test(second.replace(/[,:;.!?]+$/, "")) && !options.model) {
    const reason =
      word === "deny"
        ? rest
            .slice(rest.indexOf(second) + second.length)
            .replace(/^[\s,:;.!?-]+/, "")
            .trim()
        : "";
    return { kind: "approval", decision: word, id: second.replace(/[,:;.!?]+$/, "").toLowerCase(), ...(reason ? { reason: reason.slice(0, 1000) } : {}) };
  }
  // Exactly `fix ci` (a writer's one-off fix run); `fix ci flakiness in foo` stays a task.
  if (word === "fix" && second?.toLowerCase().replace(/[,:;.!?]+$/, "") === "ci" && !options.model) {
    if (third === undefined) return { kind: "fix_ci" };
    // `--allow-test-config` alone after it: the fix may change how tests are selected or run.
    if (third.toLowerCase() === ALLOW_TEST_CONFIG && rest.split(/\s+/).filter(Boolean).length === 3) return { kind: "fix_ci", allowTestConfig: true };
  }
  if (word === "help" && second === undefined && !options.model) return { kind: "help", reason: "" };
  const task = (t: string): Command => ({
    kind: "task",
    text: t,
    ...(options.verdict || t.split(/\s+/).some(isVerdictFlag) ? { verdictRequested: true as const } : {}),
    ...model,
  });
  if (rest) return task(rest);
  const before = text.slice(0, match.index).trim();
  if (before) return task(before);
  if (options.model) return { kind: "help", reason: "`--model` needs a request after it, e.g. `@open-swe --model <id> fix the flaky test`." };
  return { kind: "help", reason: "The mention had no request in it." };
}
