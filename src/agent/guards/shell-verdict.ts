import { unknown, type Verdict } from "./shell-verdict-body.js";
import { analyzeCode, analyzeSed } from "./shell-verdict-code.js";
import { analyzeCurl, analyzeGh, analyzeHttpie, analyzeWget, type StdinText } from "./shell-verdict-tools.js";
import { outputOf } from "./shell-static.js";
import { clientConfig, type Client } from "./shell-client-config.js";
import { dropOptions, envSplitString, xargsCommands } from "./shell-wrappers.js";
import type { SimpleCommand, Stdin, Vars } from "./shell-command.js";
import { isAssignment, isDynamic, parseShell, procSubIndex } from "./shell-words.js";

export type ShellVerdict = "APPROVE" | "REQUEST_CHANGES" | "UNKNOWN_REVIEW_POST";

export interface ShellFinding {
  verdict: ShellVerdict;
  /** Why, for UNKNOWN_REVIEW_POST: what could not be read. */
  reason: string;
}

const MAX_DEPTH = 8;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash", "yash", "tcsh", "csh", "hush", "loksh", "oksh", "pdksh", "posh"]);
const INTERPRETERS = new Set(["python", "pypy", "jython", "ipython", "node", "nodejs", "ruby", "jruby", "perl", "deno", "bun", "php", "lua", "luajit", "Rscript", "tclsh", "wish", "jshell", "groovy"]);
/** Programs that run one of their own applets, named by their first argument (`busybox sh -c …`). */
const MULTICALL = new Set(["busybox", "toybox"]);
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
const TRANSPARENT = new Set(["builtin", "noglob", "unbuffer", "chronic", "setsid", "strace", "ltrace", "nocorrect", "caffeinate", "catchsegv"]);
/** Programs that turn encoded text into other text: their output run as code cannot be read. */
const DECODERS = new Set([
  "base64",
  "base32",
  "basenc",
  "xxd",
  "od",
  "hexdump",
  "openssl",
  "rev",
  "tr",
  "gunzip",
  "zcat",
  "gzip",
  "bzip2",
  "bunzip2",
  "bzcat",
  "xz",
  "unxz",
  "xzcat",
  "zstd",
  "uudecode",
  "iconv",
  "recode",
]);
/** Programs that only read or print their arguments: a `gh` among their words is text, not a command. */
const TEXTUAL = new Set([
  "echo",
  "printf",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "cat",
  "jq",
  "yq",
  "tee",
  "less",
  "more",
  "head",
  "tail",
  "wc",
  "sort",
  "uniq",
  "cut",
  "diff",
  "patch",
  "touch",
  "mkdir",
  "ls",
  "cp",
  "mv",
  "rm",
  "ln",
  "chmod",
  "chown",
  "test",
  "[",
  "[[",
  "true",
  "false",
  "read",
  "export",
  "local",
  "declare",
  "typeset",
  "readonly",
  "set",
  "unset",
  "man",
  "which",
  "type",
  "whereis",
  "whatis",
  "tldr",
  "history",
  "file",
  "stat",
  "apt",
  "apt-get",
  "brew",
  "dnf",
  "yum",
  "apk",
  "pip",
  "pip3",
  "cd",
  "pushd",
  "popd",
  "exit",
  "return",
  "shift",
  ...DECODERS,
]);
/** Where a wrapped command may start inside an unknown program's arguments (`docker exec c gh …`). */
const RUNNABLE = new Set(["gh", "hub", "curl", "wget", "http", "https", "xh", "xhs", "env", "sudo", "doas", "xargs", "eval", ...MULTICALL, ...SHELLS, ...INTERPRETERS]);
/** Text that says a command is about GitHub reviews; used to fail closed where code cannot be read. */
const GITHUB_WORDS = /\bgh\b|\bhub\b|api\.github|\/api\/v3|graphql|\/pulls\/|reviews|approve|request[-_ ]?changes|pullrequestreview/i;

interface Shared {
  raw: string;
  notes: string[];
  /** `alias x='…'` seen earlier in the command. */
  aliases: Map<string, string>;
  /** Files this command writes before it may run them (`> f`, `tee f`): their text, or null when unknown. */
  files: Map<string, string | null>;
  /** Encoded text was decoded somewhere in the command (base64, xxd, an undecodable `$'…'`). */
  tainted: boolean;
  /** Each file written by a redirect or `tee`, in order (a client's config file among them). */
  written: string[];
  /** Variables the command assigns anywhere (`X=1`, `X=1 cmd`, `env X=1 cmd`). */
  assigned: Set<string>;
}

interface Ctx {
  vars: Vars;
  depth: number;
  procSubs: Array<SimpleCommand | null>;
  shared: Shared;
}

/**
 * What this shell command would do to a pull-request review: submit APPROVE / REQUEST_CHANGES, or
 * UNKNOWN_REVIEW_POST when it reaches for GitHub (gh, an HTTP client, review-API code) with parts that
 * cannot be read before it runs. Null: no review verdict that we can see. A screen, not a boundary:
 * scripts in files and earlier commands' side effects are out of its sight.
 */
export function analyzeShellCommand(command: string): ShellFinding | null {
  const script = command.replaceAll("\u0000", "");
  const shared: Shared = { raw: script, notes: [], tainted: false, aliases: new Map(), files: new Map(), written: [], assigned: new Set() };
  let v: Verdict;
  try {
    v = scan(script, new Map(), 0, shared);
  } catch {
    v = GITHUB_WORDS.test(script) ? unknown((r) => shared.notes.push(r), "the command could not be analysed") : null;
  }
  if (v === null) return null;
  return { verdict: v, reason: v === "UNKNOWN_REVIEW_POST" ? (shared.notes[0] ?? "part of it cannot be read") : `it submits a review verdict (${v})` };
}

export function detectShellVerdict(command: string): ShellVerdict | null {
  return analyzeShellCommand(command)?.verdict ?? null;
}

function scan(script: string, vars: Vars, depth: number, shared: Shared): Verdict {
  const note = (r: string): void => void shared.notes.push(r);
  if (depth > MAX_DEPTH) return unknown(note, "commands nested too deep to read");
  const parsed = parseShell(script, new Map(vars));
  if (parsed.unresolved.some((u) => u.startsWith("an ANSI-C"))) shared.tainted = true;
  if (parsed.commands.some((c) => DECODERS.has(basename(c.words[0] ?? "")))) shared.tainted = true;
  const ctx: Ctx = { vars, depth, procSubs: parsed.procSubs, shared };
  for (const [name] of parsed.assignments) shared.assigned.add(name);
  const checks = parsed.commands.map((cmd) => () => {
    recordWrites(cmd, shared);
    return analyze(cmd.words, cmd.stdin, ctx);
  });
  for (const [name, value] of parsed.assignments) if (EXEC_ENV.test(name)) checks.push(() => shellText(value, ctx));
  const arithmetic = parsed.arithmetic[0];
  if (arithmetic !== undefined)
    checks.push(() =>
      opaque(ctx, `bash evaluates ${arithmetic} as arithmetic or as a variable name, and its value is only known when the command runs (an array subscript in it would run a command)`),
    );
  if (parsed.parseError) checks.push(() => (GITHUB_WORDS.test(script) ? unknown(note, "part of it is not valid shell syntax, and bash would still run what comes before") : null));
  return worst(checks);
}

/** A definite verdict wins over an unknown post; evaluation stops at the first definite one. */
function worst(checks: Array<() => Verdict>): Verdict {
  let unknownSeen = false;
  for (const check of checks) {
    const v = check();
    if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
    if (v === "UNKNOWN_REVIEW_POST") unknownSeen = true;
  }
  return unknownSeen ? "UNKNOWN_REVIEW_POST" : null;
}

function recordWrites(cmd: SimpleCommand, shared: Shared): void {
  const targets = [...(cmd.writes ?? [])];
  if (basename(cmd.words[0] ?? "") === "tee")
    targets.push(
      ...cmd.words
        .slice(1)
        .filter((w) => !w.startsWith("-"))
        .map((w) => (cmd.words.includes("-a") ? `+${w}` : w)),
    );
  if (targets.length === 0) return;
  const produced = basename(cmd.words[0] ?? "") === "tee" ? resolveStdin(cmd.stdin, shared.files) : outputOf(cmd);
  const text = produced === null || isDynamic(produced) ? null : produced;
  for (const t of targets) {
    const append = t.startsWith("+");
    const path = normalizeFile(append ? t.slice(1) : t);
    const before = append ? (shared.files.get(path) ?? "") : "";
    shared.files.set(path, text === null || before === null ? null : before + text);
    shared.written.push(path);
  }
}

function normalizeFile(path: string): string {
  return path.replace(/^(?:\.\/)+/, "");
}

/** A script this same command wrote: scanned; unreadable if we could not tell what was written. */
function writtenScript(path: string | undefined, ctx: Ctx, run: (text: string) => Verdict): Verdict | undefined {
  if (path === undefined || !ctx.shared.files.has(normalizeFile(path))) return undefined;
  const text = ctx.shared.files.get(normalizeFile(path));
  if (text === null || text === undefined) return opaque(ctx, "it runs a file it wrote with content we cannot read");
  return run(text);
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

function resolveStdin(stdin: Stdin | null, files?: Map<string, string | null>): StdinText {
  if (!stdin) return null;
  if (stdin.kind === "text") return stdin.text;
  if (stdin.kind === "unknown") return (stdin.path !== undefined ? files?.get(normalizeFile(stdin.path)) : undefined) ?? DYN;
  return outputOf(stdin.from) ?? DYN;
}

const DYN = "\u0001";
/** Environment variables whose value a program runs as a command (git's pager, ssh, editors, bash's ENV). */
const EXEC_ENV =
  /^(?:GIT_PAGER|GIT_SSH_COMMAND|GIT_SSH|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|GIT_PROXY_COMMAND|SSH_ASKPASS|SUDO_ASKPASS|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|BASH_ENV|ENV|PROMPT_COMMAND|BROWSER|GH_PAGER|GH_EDITOR|GH_BROWSER)$/;

/** Code we cannot read is about to run: block it when it was decoded here or the command talks about reviews. */
function opaque(ctx: Ctx, what: string): Verdict {
  const note = (r: string): void => void ctx.shared.notes.push(r);
  if (ctx.shared.tainted) return unknown(note, `${what}, built from decoded text`);
  if (GITHUB_WORDS.test(ctx.shared.raw)) return unknown(note, `${what}, in a command that mentions gh or GitHub reviews`);
  return null;
}

function analyze(input: string[], stdin: Stdin | null, ctx: Ctx): Verdict {
  return worst([() => exportedFunctions(input, ctx), () => analyzeWords(input, stdin, ctx)]);
}

/**
 * `env 'BASH_FUNC_f%%=() { …; }' bash -c f`: a value that starts with `() {` handed to an environment
 * is imported by bash as a function, and its body runs when the function is called. Every such word
 * is scanned as that function's definition; an exported function we cannot read is refused.
 */
function exportedFunctions(words: string[], ctx: Ctx): Verdict {
  const checks: Array<() => Verdict> = [];
  for (const w of words) {
    const m = /^[^\s=]*=\s*(\(\)\s*\{[\s\S]*)$/.exec(w);
    if (m) checks.push(() => shellText(`f${m[1]!}`, ctx));
    else if (/^BASH_FUNC_[^=]*=/.test(w) && isDynamic(w)) checks.push(() => unknown((r) => void ctx.shared.notes.push(r), "a function is exported to bash from text we cannot read"));
  }
  return worst(checks);
}

/** `python3.11` → `python`, `node22` → `node`, `perl5.36` → `perl`, `pypy3` → `pypy`: a versioned build is the program. */
export function programFamily(name: string): string {
  const m = /^([A-Za-z][A-Za-z_]*?)-?v?\d+(?:[._]\d+)*[a-z]?(?:-(?:dbg|debug))?$/.exec(name);
  return m ? m[1]! : name;
}

/** A client call, with the configuration this command wrote for it before the call read first. */
function withClientConfig(client: Client, args: string[], ctx: Ctx, run: (args: string[]) => Verdict): Verdict {
  const ignores = client === "curl" ? args[0] === "-q" || args[0] === "--disable" : client === "wget" && args.includes("--no-config");
  if (ignores) return run(args);
  const written = ctx.shared.written.map((path) => ({ path, text: ctx.shared.files.get(path) ?? null }));
  const config = clientConfig(client, ctx.shared.raw, written, ctx.shared.assigned);
  if (config.kind === "none") return run(args);
  if (config.kind === "args") return run([...config.args, ...args]);
  return worst([() => run(args), () => unknown((r) => void ctx.shared.notes.push(r), config.why)]);
}

function analyzeWords(input: string[], stdinIn: Stdin | null, ctx: Ctx): Verdict {
  const note = (r: string): void => void ctx.shared.notes.push(r);
  const rescan = (script: string): Verdict => scan(script, ctx.vars, ctx.depth + 1, ctx.shared);
  let words = input;
  let stdin = stdinIn;
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
    const alias = ctx.shared.aliases.get(head);
    if (alias !== undefined && ctx.depth < MAX_DEPTH) return rescan([alias, ...rest].join(" "));
    const written = writtenScript(head, ctx, rescan);
    if (written !== undefined) return written;
    switch (name) {
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
        if (split !== null) return rescan(split);
        words = dropOptions(rest, new Set(["-u", "--unset", "-C", "--chdir", "-S"]));
        // env sets every NAME=VALUE word before the command, whatever the name.
        while (words[0]?.includes("=")) {
          ctx.shared.assigned.add(words[0].slice(0, words[0].indexOf("=")));
          words = words.slice(1);
        }
        continue;
      }
      case "sudo":
      case "doas":
        words = dropOptions(
          rest,
          new Set([
            "-u",
            "-g",
            "-C",
            "-D",
            "-h",
            "-p",
            "-r",
            "-t",
            "-U",
            "-T",
            "-R",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--chdir",
            "--close-from",
            "--command-timeout",
          ]),
        );
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
      case "xargs": {
        // The command line xargs builds from its arguments and stdin is what runs: evaluate each one.
        const cmds = xargsCommands(rest, resolveStdin(stdin, ctx.shared.files));
        if (cmds.length === 1) {
          words = cmds[0]!;
          stdin = null;
          continue;
        }
        return worst(cmds.map((c) => () => analyze(c, null, ctx)));
      }
      case "eval": {
        const text = rest.join(" ");
        return worst([() => rescan(text), () => (isDynamic(text) ? opaque(ctx, "`eval` runs text that is only known when the command runs") : null)]);
      }
      case "watch":
        return rescan(dropOptions(rest, new Set(["-n", "-d", "--interval"])).join(" "));
      case "su":
      case "script":
      case "runuser":
      case "flock": {
        const at = rest.findIndex((w) => /^-[a-zA-Z]*c$/.test(w) || w === "--command");
        if (at !== -1 && rest[at + 1] !== undefined) return shellText(rest[at + 1]!, ctx);
        if (name === "flock") return analyze(dropOptions(rest, new Set(["-w", "--timeout", "-E", "--conflict-exit-code"])).slice(1), null, ctx);
        // `runuser -u user -- cmd …` runs the command; `su user` with no -c runs a shell on stdin.
        const dash = rest.indexOf("--");
        if (name === "runuser" && dash !== -1) {
          words = rest.slice(dash + 1);
          continue;
        }
        if ((name === "su" || name === "runuser") && stdin) return analyzeShell([], stdin, ctx);
        return null;
      }
      case "find":
        return scanFindExec(rest, ctx);
      case "alias":
        for (const w of rest) {
          const m = /^([^=]+)=(.*)$/s.exec(w);
          if (m) ctx.shared.aliases.set(m[1]!, m[2]!);
        }
        return worst(rest.map((w) => () => rescan(w.replace(/^[^=]*=/, ""))));
      case "trap":
        return rest[0] === undefined || rest[0].startsWith("-") ? null : shellText(rest[0], ctx);
      case "busybox":
      case "toybox":
        if (rest[0] === undefined || rest[0].startsWith("-")) return null;
        words = rest;
        continue;
      case "git":
        return scanGitAliases(rest, ctx);
      case "source":
      case ".":
        return writtenScript(rest[0], ctx, rescan) ?? scanProcSub(rest[0], ctx);
      case "sed":
      case "gsed":
        return analyzeSed(rest, { note, scan: rescan });
      default:
        break;
    }
    const family = programFamily(name);
    if (SHELLS.has(name) || SHELLS.has(family)) return analyzeShell(rest, stdin, ctx);
    const text = resolveStdin(stdin, ctx.shared.files);
    if (INTERPRETERS.has(name) || INTERPRETERS.has(family)) return analyzeInterpreter(rest, text, ctx);
    if (AWKS.has(name) || AWKS.has(family)) {
      const program = dropOptions(rest, new Set(["-F", "-v", "-f", "--field-separator", "--assign"]))[0];
      return program === undefined || rest.includes("-f") ? null : analyzeCode(program, { note, scan: rescan });
    }
    if (name === "gh") return withClientConfig("gh", rest, ctx, (args) => analyzeGh(args, { stdin: text, note, scan: rescan }));
    if (name === "hub") return analyzeGh(rest, { stdin: text, note, scan: rescan }, true);
    if (name === "curl") return withClientConfig("curl", rest, ctx, (args) => analyzeCurl(args, text, note));
    if (name === "wget") return withClientConfig("wget", rest, ctx, (args) => analyzeWget(args, text, note));
    if (name === "http" || name === "https" || name === "xh" || name === "xhs") return withClientConfig("httpie", rest, ctx, (args) => analyzeHttpie(args, text, note));
    if (isDynamic(name)) return unknownProgram(rest, text, ctx);
    if (TEXTUAL.has(name)) return null;
    return unknownWrapper(rest, text, ctx);
  }
}

/** `$GH pr review -a`, `$(echo gh) …`: judge it as each tool it could be, and fail closed if it talks about reviews. */
function unknownProgram(rest: string[], text: StdinText, ctx: Ctx): Verdict {
  const quiet = (): void => {};
  for (const candidate of [analyzeGh(rest, { stdin: text, note: quiet, scan: () => null }), analyzeCurl(rest, text, quiet)]) {
    if (candidate === "APPROVE" || candidate === "REQUEST_CHANGES") return candidate;
  }
  return opaque(ctx, "the program's name comes from an expansion");
}

/** An unknown program that may run its arguments (`docker exec c gh …`, `ssh host 'gh …'`, `make -f - <<EOF`). */
function unknownWrapper(rest: string[], text: StdinText, ctx: Ctx): Verdict {
  const at = rest.findIndex((w) => RUNNABLE.has(basename(w)));
  const checks: Array<() => Verdict> = [];
  if (at !== -1) checks.push(() => analyze(rest.slice(at), null, { ...ctx, depth: ctx.depth + 1 }));
  const concrete = (v: Verdict): Verdict => (v === "APPROVE" || v === "REQUEST_CHANGES" ? v : null);
  // A renamed or linked gh / curl (`cp $(which gh) x; ./x pr review 7 -a`): judge the words as theirs.
  const quiet = (): void => {};
  checks.push(() => concrete(analyzeGh(rest, { stdin: text, note: quiet, scan: () => null }, true)));
  checks.push(() => concrete(analyzeCurl(rest, text, quiet)));
  for (const w of rest) if (/\s/.test(w) && GITHUB_WORDS.test(w)) checks.push(() => concrete(scan(w, ctx.vars, ctx.depth + 1, ctx.shared)));
  if (text !== null && GITHUB_WORDS.test(text)) checks.push(() => scan(text, ctx.vars, ctx.depth + 1, ctx.shared));
  return ctx.depth >= MAX_DEPTH ? null : worst(checks);
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

/**
 * `git -c alias.x='!gh pr review -a' x`, `git -c core.pager='…' log`, `git config alias.x '!…'`: many
 * git settings run their value as a shell command, so every value set on the command line is scanned.
 */
function scanGitAliases(rest: string[], ctx: Ctx): Verdict {
  const scripts: string[] = [];
  rest.forEach((w, i) => {
    if (rest[i - 1] === "-c" || rest[i - 1] === "--config-env") {
      const eq = w.indexOf("=");
      if (eq !== -1) scripts.push(w.slice(eq + 1).replace(/^!/, ""));
    }
  });
  const config = rest.indexOf("config");
  if (config !== -1) {
    const args = rest.slice(config + 1).filter((w) => !w.startsWith("-"));
    if (args[1] !== undefined) scripts.push(args[1].replace(/^!/, ""));
  }
  return worst(scripts.map((s) => () => shellText(s, ctx)));
}

/** `source <(echo …)`, `bash <(printf …)`: the substituted command's output is a script. */
function scanProcSub(word: string | undefined, ctx: Ctx): Verdict {
  const index = word === undefined ? null : procSubIndex(word);
  if (index === null) return word !== undefined && isDynamic(word) ? opaque(ctx, "a script whose path comes from an expansion") : null;
  const producer = ctx.procSubs[index];
  const text = producer ? outputOf(producer) : null;
  return text === null ? opaque(ctx, "a process substitution's output is run as a script") : scan(text, ctx.vars, ctx.depth + 1, ctx.shared);
}

/** A script given as text: scanned; if parts of it are only known at run time, fail closed. */
function shellText(text: string, ctx: Ctx): Verdict {
  return worst([() => scan(text, ctx.vars, ctx.depth + 1, ctx.shared), () => (isDynamic(text) ? opaque(ctx, "a shell runs a script that is only known when the command runs") : null)]);
}

/** `bash -c 'script'`, `bash <<EOF`, `echo … | sh`: the script is scanned recursively. */
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
    if (wantsScript) return shellText(w, ctx);
    return writtenScript(w, ctx, (t) => shellText(t, ctx)) ?? scanProcSub(w, ctx); // otherwise a script file we cannot read
  }
  if (wantsScript) return null;
  const text = resolveStdin(stdin, ctx.shared.files);
  if (text === null) return null;
  return isDynamic(text) ? opaque(ctx, "a shell runs a script from stdin that we cannot read") : shellText(text, ctx);
}

/** `python -c "…"`, `node -e`, `python3 - <<EOF`, or a script piped in. */
function analyzeInterpreter(rest: string[], text: StdinText, ctx: Ctx): Verdict {
  const note = (r: string): void => void ctx.shared.notes.push(r);
  // `-c`, `-e`, and bundles that end in one (`python -Ic`, `perl -we`, `node -pe`).
  const at = rest.findIndex((w) => /^-(?:[A-Za-z]*[ce]|p|r|E|-eval|-print|-command)$/.test(w) || w === "eval");
  const inline = at === -1 ? undefined : rest[at + 1];
  const file = at === -1 ? rest.find((w) => !w.startsWith("-")) : undefined;
  const written = writtenScript(file, ctx, (t) => analyzeCode(t, { note, scan: (s) => scan(s, ctx.vars, ctx.depth + 1, ctx.shared) }));
  if (written !== undefined) return written;
  const runsFile = at === -1 && rest.some((w) => !w.startsWith("-") && w !== "-");
  const code = [inline ?? "", runsFile ? "" : (text ?? "")].join("\n");
  const checks: Array<() => Verdict> = [() => analyzeCode(code, { note, scan: (s) => scan(s, ctx.vars, ctx.depth + 1, ctx.shared) })];
  if (!runsFile && inline === undefined && text !== null && isDynamic(text)) checks.push(() => opaque(ctx, "an interpreter runs code from stdin that we cannot read"));
  return worst(checks);
}
