import { DYN, isAssignment, isDynamic, parseShell, type SimpleCommand, type Stdin, type Vars } from "./shell-parse.js";
import { analyzeCurl, analyzeGh, analyzeHttpie, analyzeWget, type Verdict, type StdinText } from "./shell-verdict-tools.js";

export type ShellVerdict = "APPROVE" | "REQUEST_CHANGES" | "UNKNOWN_REVIEW_POST";

const MAX_DEPTH = 8;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "busybox"]);
const INTERPRETERS = new Set(["python", "python3", "node", "ruby", "perl", "deno", "bun"]);
const TRANSPARENT = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "exec", "nohup", "builtin", "noglob", "unbuffer", "chronic", "setsid"]);

/**
 * Would this shell command submit a pull-request review verdict (approve / request changes)?
 * `UNKNOWN_REVIEW_POST` means it posts to a review endpoint with a body we cannot see (file, stdin,
 * variable); callers block it like a verdict.
 */
export function detectShellVerdict(command: string): ShellVerdict | null {
  return scan(command, new Map(), 0);
}

function scan(script: string, vars: Vars, depth: number): ShellVerdict | null {
  if (depth > MAX_DEPTH) return "UNKNOWN_REVIEW_POST";
  let unknown = false;
  for (const cmd of parseShell(script, new Map(vars))) {
    const v = analyze(cmd.words, cmd.stdin, vars, depth);
    if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
    if (v === "UNKNOWN_REVIEW_POST") unknown = true;
  }
  return unknown ? "UNKNOWN_REVIEW_POST" : null;
}

function resolveStdin(stdin: Stdin | null, seen = 0): StdinText {
  if (!stdin || seen > 8) return null;
  if (stdin.kind === "text") return stdin.text;
  if (stdin.kind === "unknown") return null;
  const from = stdin.from;
  const name = basename(from.words[0] ?? "");
  const args = from.words.slice(1);
  if (name === "echo") {
    const text = args.filter((a) => !/^-[neE]+$/.test(a)).join(" ");
    return isDynamic(text) ? null : `${text}\n`;
  }
  if (name === "printf") {
    const text = args.join(" ");
    return isDynamic(text) ? null : text.replace(/\\n/g, "\n");
  }
  if (name === "cat" && args.length === 0) return resolveStdin(from.stdin, seen + 1);
  return null;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

function analyze(input: string[], stdin: Stdin | null, vars: Vars, depth: number): Verdict {
  let words = input;
  for (;;) {
    while (words.length > 0 && isAssignment(words[0]!)) words = words.slice(1);
    const head = words[0];
    if (head === undefined) return null;
    const name = basename(head);
    const rest = words.slice(1);
    if (TRANSPARENT.has(name)) {
      words = rest;
      continue;
    }
    switch (name) {
      case "for":
      case "case":
      case "select":
      case "function":
        return null;
      case "time":
        words = rest[0] === "-p" ? rest.slice(1) : rest;
        continue;
      case "command":
        if (rest.some((w) => w === "-v" || w === "-V")) return null;
        words = dropOptions(rest, new Set());
        continue;
      case "env": {
        const split = envSplitString(rest);
        if (split !== null) return scan(split, vars, depth + 1);
        words = dropOptions(rest, new Set(["-u", "--unset", "-C", "--chdir"]));
        continue;
      }
      case "sudo":
      case "doas":
        words = dropOptions(rest, new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--host", "--prompt", "--role", "--type", "--other-user", "--chdir", "--close-from", "--command-timeout"]));
        continue;
      case "nice":
      case "ionice":
      case "stdbuf":
        words = dropOptions(rest, new Set(["-n", "-c", "-p", "-i", "-o", "-e", "--adjustment"]));
        continue;
      case "timeout": {
        const after = dropOptions(rest, new Set(["-s", "-k", "--signal", "--kill-after"]));
        words = after.slice(1);
        continue;
      }
      case "xargs":
        words = xargsCommand(rest, resolveStdin(stdin));
        stdin = null;
        continue;
      case "eval":
        return scan(rest.join(" "), vars, depth + 1);
      case "watch":
        return scan(dropOptions(rest, new Set(["-n", "-d", "--interval"])).join(" "), vars, depth + 1);
      case "find":
        return scanFindExec(rest, vars, depth);
      default:
        break;
    }
    if (SHELLS.has(name)) return analyzeShell(rest, stdin, vars, depth);
    if (INTERPRETERS.has(name)) return analyzeInlineCode(rest);
    const text = resolveStdin(stdin);
    if (name === "gh" || name === "hub") return analyzeGh(rest, text);
    if (name === "curl") return analyzeCurl(rest, text);
    if (name === "wget") return analyzeWget(rest, text);
    if (name === "http" || name === "https" || name === "xh" || name === "xhs") return analyzeHttpie(rest, text);
    if (isDynamic(head)) {
      // An unknown program name (`$GH pr review -a`): judge it as each of the tools it could be.
      for (const candidate of [analyzeGh(rest, text), analyzeCurl(rest, text)]) if (candidate) return candidate;
    }
    return null;
  }
}

/** Skips leading options (and the values of those in `withValue`) up to the wrapped command. */
function dropOptions(words: string[], withValue: Set<string>): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w === "--") return words.slice(i + 1);
    if (!w.startsWith("-") || w === "-") {
      if (isAssignment(w)) {
        i++;
        continue;
      }
      break;
    }
    i += withValue.has(w) ? 2 : 1;
  }
  return words.slice(i).filter((w, idx) => idx > 0 || w !== "-");
}

function envSplitString(rest: string[]): string | null {
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "-S" || w === "--split-string") return rest.slice(i + 1).join(" ");
    if (w.startsWith("--split-string=")) return [w.slice("--split-string=".length), ...rest.slice(i + 1)].join(" ");
    if (w.startsWith("-S") && w.length > 2) return [w.slice(2), ...rest.slice(i + 1)].join(" ");
    if (!w.startsWith("-")) return null;
  }
  return null;
}

const XARGS_VALUE = new Set(["-I", "-n", "-L", "-l", "-P", "-d", "-E", "-e", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-lines", "--max-procs", "--max-chars", "--replace", "--eof"]);

/** The command xargs runs, with the arguments it would read from stdin appended. */
function xargsCommand(rest: string[], stdinText: StdinText): string[] {
  let i = 0;
  while (i < rest.length && rest[i]!.startsWith("-")) {
    const w = rest[i]!;
    if (w === "--") {
      i++;
      break;
    }
    i += XARGS_VALUE.has(w) ? 2 : 1;
  }
  const cmd = rest.slice(i);
  const extra = stdinText === null ? [DYN] : stdinText.split(/\s+/).filter(Boolean);
  return [...(cmd.length > 0 ? cmd : ["echo"]), ...extra];
}

function scanFindExec(rest: string[], vars: Vars, depth: number): Verdict {
  let unknown = false;
  for (let i = 0; i < rest.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(rest[i]!)) continue;
    const cmd: string[] = [];
    for (i++; i < rest.length && rest[i] !== ";" && rest[i] !== "+"; i++) cmd.push(rest[i]!);
    const v = analyze(cmd, null, vars, depth + 1);
    if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
    if (v) unknown = true;
  }
  return unknown ? "UNKNOWN_REVIEW_POST" : null;
}

/** `bash -c 'script'`, `bash -lc …`, `bash <<EOF`, `echo … | sh`: the script is scanned recursively. */
function analyzeShell(rest: string[], stdin: Stdin | null, vars: Vars, depth: number): Verdict {
  let wantsScript = false;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "-o" || w === "+o" || w === "-O" || w === "+O" || w === "--rcfile" || w === "--init-file") {
      i++;
      continue;
    }
    if (w === "--") continue;
    if (/^[-+][A-Za-z]+$/.test(w)) {
      if (w.startsWith("-") && w.includes("c")) wantsScript = true;
      continue;
    }
    if (w.startsWith("--")) continue;
    if (wantsScript) return scan(w, vars, depth + 1);
    if (w === "-c") continue;
    return null; // a script file we cannot read
  }
  const text = resolveStdin(stdin);
  return text === null ? null : scan(text, vars, depth + 1);
}

/** `python -c "…"` and friends: a crude look at the inline code for a review submission. */
function analyzeInlineCode(rest: string[]): Verdict {
  const code = rest.join(" ");
  const touchesReviews = /\/pulls\/[^/\s]+\/reviews\b/.test(code) || /\b(addPullRequestReview|submitPullRequestReview)\b/.test(code);
  if (!touchesReviews) return null;
  if (/\bAPPROVE\b/.test(code)) return "APPROVE";
  if (/\bREQUEST_CHANGES\b/.test(code)) return "REQUEST_CHANGES";
  return /\bCOMMENT\b/.test(code) ? null : "UNKNOWN_REVIEW_POST";
}
