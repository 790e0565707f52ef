import { isAssignment, isDynamic, parseShell, procSubIndex, type SimpleCommand, type Stdin, type Vars } from "./shell-parse.js";
import { analyzeCurl, analyzeGh, analyzeHttpie, analyzeWget, type StdinText, type Verdict } from "./shell-verdict-tools.js";
import { dropOptions, envSplitString, xargsCommand } from "./shell-wrappers.js";

export type ShellVerdict = "APPROVE" | "REQUEST_CHANGES" | "UNKNOWN_REVIEW_POST";

const MAX_DEPTH = 8;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "busybox", "fish"]);
const INTERPRETERS = new Set(["python", "python3", "node", "ruby", "perl", "deno", "bun", "php"]);
const TRANSPARENT = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "builtin", "noglob", "unbuffer", "chronic", "setsid"]);
const DECODERS = new Set(["base64", "base32", "basenc", "xxd", "openssl", "rev", "gunzip", "zcat", "gzip", "bzip2", "bunzip2", "xz", "unxz", "uudecode", "zstd"]);
/** Programs that only read or print their arguments: a `gh` among their words is text, not a command. */
const TEXTUAL = new Set([
  "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "cat", "sed", "awk", "gawk", "jq", "yq", "tee", "less", "more", "head", "tail",
  "wc", "sort", "uniq", "cut", "tr", "diff", "patch", "touch", "mkdir", "ls", "cp", "mv", "rm", "ln", "chmod", "chown", "test", "[", "[[", "true",
  "false", "read", "export", "local", "declare", "typeset", "readonly", "set", "unset", "man", "which", "type", "whereis", "whatis", "tldr",
  "history", "file", "stat", "apt", "apt-get", "brew", "dnf", "yum", "apk", "pip", "pip3", "cd", "pushd", "popd", "exit", "return", "shift",
]);
/** Where a wrapped command may start inside an unknown program's arguments (`docker exec c gh …`). */
const RUNNABLE = new Set(["gh", "hub", "curl", "wget", "http", "https", "xh", "xhs", "env", "sudo", "doas", "xargs", "eval", ...SHELLS]);

interface Ctx {
  vars: Vars;
  depth: number;
  procSubs: Array<SimpleCommand | null>;
}

/**
 * Would this shell command submit a pull-request review verdict (approve / request changes)?
 * `UNKNOWN_REVIEW_POST` means it posts to a review endpoint with a body we cannot see (file, stdin,
 * variable, decoded data piped to a shell); callers block it like a verdict.
 */
export function detectShellVerdict(command: string): ShellVerdict | null {
  try {
    return scan(command, new Map(), 0);
  } catch {
    // Only pathological input gets here (e.g. nesting deeper than the stack): fail closed if it could matter.
    return /review|graphql/i.test(command) ? "UNKNOWN_REVIEW_POST" : null;
  }
}

function scan(script: string, vars: Vars, depth: number): ShellVerdict | null {
  if (depth > MAX_DEPTH) return "UNKNOWN_REVIEW_POST";
  const parsed = parseShell(script, new Map(vars));
  const ctx: Ctx = { vars, depth, procSubs: parsed.procSubs };
  return worst(parsed.commands.map((cmd) => () => analyze(cmd.words, cmd.stdin, ctx)));
}

/** A definite verdict wins over an unknown post; evaluation stops at the first definite one. */
function worst(checks: Array<() => Verdict>): ShellVerdict | null {
  let unknown = false;
  for (const check of checks) {
    const v = check();
    if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
    if (v === "UNKNOWN_REVIEW_POST") unknown = true;
  }
  return unknown ? "UNKNOWN_REVIEW_POST" : null;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

/** The text a command reads on stdin, when it comes from a literal (echo, printf, heredoc, `<<<`). */
function resolveStdin(stdin: Stdin | null, seen = 0): StdinText {
  if (!stdin || seen > 8) return null;
  if (stdin.kind === "text") return stdin.text;
  if (stdin.kind === "unknown") return null;
  return outputOf(stdin.from, seen);
}

function outputOf(from: SimpleCommand, seen = 0): StdinText {
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

function fromDecoder(stdin: Stdin | null): boolean {
  return stdin?.kind === "pipe" && DECODERS.has(basename(stdin.from.words[0] ?? ""));
}

function analyze(input: string[], stdin: Stdin | null, ctx: Ctx): Verdict {
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
      case "exec":
        words = dropOptions(rest, new Set(["-a"]));
        continue;
      case "command":
        if (rest.some((w) => w === "-v" || w === "-V")) return null;
        words = dropOptions(rest, new Set());
        continue;
      case "env": {
        const split = envSplitString(rest);
        if (split !== null) return scan(split, ctx.vars, ctx.depth + 1);
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
      case "nohup":
        words = dropOptions(rest, new Set(["-n", "-c", "-p", "-i", "-o", "-e", "--adjustment"]));
        continue;
      case "timeout":
        words = dropOptions(rest, new Set(["-s", "-k", "--signal", "--kill-after"])).slice(1);
        continue;
      case "xargs":
        words = xargsCommand(rest, resolveStdin(stdin));
        stdin = null;
        continue;
      case "eval":
        return scan(rest.join(" "), ctx.vars, ctx.depth + 1);
      case "watch":
        return scan(dropOptions(rest, new Set(["-n", "-d", "--interval"])).join(" "), ctx.vars, ctx.depth + 1);
      case "su":
      case "script":
      case "runuser": {
        const at = rest.findIndex((w) => w === "-c" || w === "--command");
        return at === -1 || rest[at + 1] === undefined ? null : scan(rest[at + 1]!, ctx.vars, ctx.depth + 1);
      }
      case "find":
        return scanFindExec(rest, ctx);
      case "alias":
        return worst(rest.map((w) => () => scan(w.replace(/^[^=]*=/, ""), ctx.vars, ctx.depth + 1)));
      case "git":
        return scanGitAliases(rest, ctx);
      case "source":
      case ".":
        return scanProcSub(rest[0], ctx);
      default:
        break;
    }
    if (SHELLS.has(name)) return analyzeShell(rest, stdin, ctx);
    const text = resolveStdin(stdin);
    if (INTERPRETERS.has(name)) return analyzeInlineCode(rest, text);
    if (name === "gh" || name === "hub") return analyzeGh(rest, text);
    if (name === "curl") return analyzeCurl(rest, text);
    if (name === "wget") return analyzeWget(rest, text);
    if (name === "http" || name === "https" || name === "xh" || name === "xhs") return analyzeHttpie(rest, text);
    if (isDynamic(head)) {
      // An unknown program name (`$GH pr review -a`): judge it as each of the tools it could be.
      for (const candidate of [analyzeGh(rest, text), analyzeCurl(rest, text)]) if (candidate) return candidate;
    }
    if (TEXTUAL.has(name)) return null;
    // An unknown program that may run its arguments (`docker exec c gh …`, `flock f sh -c …`).
    const at = rest.findIndex((w) => RUNNABLE.has(basename(w)));
    return at === -1 ? null : analyze(rest.slice(at), null, { ...ctx, depth: ctx.depth + 1 });
  }
}

function scanFindExec(rest: string[], ctx: Ctx): Verdict {
  const checks: Array<() => Verdict> = [];
  for (let i = 0; i < rest.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(rest[i]!)) continue;
    const cmd: string[] = [];
    for (i++; i < rest.length && rest[i] !== ";" && rest[i] !== "+"; i++) cmd.push(rest[i]!);
    checks.push(() => analyze(cmd, null, { ...ctx, depth: ctx.depth + 1 }));
  }
  return worst(checks);
}

/** `git -c alias.x='!gh pr review -a' x`, `git config alias.x '!…'`: shell aliases run their text. */
function scanGitAliases(rest: string[], ctx: Ctx): Verdict {
  const scripts: string[] = [];
  rest.forEach((w, i) => {
    const inline = /^alias\.[^=]+=!(.*)$/s.exec(w);
    if (inline) scripts.push(inline[1]!);
    else if (/^alias\./.test(w) && rest[i + 1]?.startsWith("!")) scripts.push(rest[i + 1]!.slice(1));
  });
  return worst(scripts.map((s) => () => scan(s, ctx.vars, ctx.depth + 1)));
}

/** `source <(echo …)`, `bash <(printf …)`: the substituted command's literal output is a script. */
function scanProcSub(word: string | undefined, ctx: Ctx): Verdict {
  const index = word === undefined ? null : procSubIndex(word);
  const producer = index === null ? null : ctx.procSubs[index];
  if (!producer) return null;
  if (DECODERS.has(basename(producer.words[0] ?? "")) || fromDecoder(producer.stdin)) return "UNKNOWN_REVIEW_POST";
  const text = outputOf(producer);
  return text === null ? null : scan(text, ctx.vars, ctx.depth + 1);
}

/** `bash -c 'script'`, `bash -lc …`, `bash <<EOF`, `echo … | sh`: the script is scanned recursively. */
function analyzeShell(rest: string[], stdin: Stdin | null, ctx: Ctx): Verdict {
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
    if (wantsScript) return scan(w, ctx.vars, ctx.depth + 1);
    return scanProcSub(w, ctx); // otherwise a script file we cannot read
  }
  // Decoded bytes piped into a shell are a script nobody can read before it runs.
  if (fromDecoder(stdin)) return "UNKNOWN_REVIEW_POST";
  const text = resolveStdin(stdin);
  return text === null ? null : scan(text, ctx.vars, ctx.depth + 1);
}

/** `python -c "…"`, `node -e`, or a script on stdin: a crude look for a review submission. */
function analyzeInlineCode(rest: string[], stdin: StdinText): Verdict {
  const code = [...rest, stdin ?? ""].join(" ");
  const touchesReviews = /\/pulls\/[^/\s]+\/reviews\b/.test(code) || /\b(addPullRequestReview|submitPullRequestReview|createReview|submitReview)\b/.test(code);
  if (!touchesReviews) return null;
  if (/\bAPPROVE\b/.test(code)) return "APPROVE";
  if (/\bREQUEST_CHANGES\b/.test(code)) return "REQUEST_CHANGES";
  return /\bCOMMENT\b/.test(code) ? null : "UNKNOWN_REVIEW_POST";
}

