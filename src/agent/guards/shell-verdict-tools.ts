import { judgeBody, targetOf, unknown, type Note, type Part, type Target, type Verdict } from "./shell-verdict-body.js";
import { curlConfigArgs } from "./shell-client-config.js";
import { SPLIT } from "./shell-command.js";
import { isDynamic } from "./shell-words.js";

export type { Verdict };
/** What the command reads on stdin: its text, DYN when it has stdin we cannot read, null when none. */
export type StdinText = string | null;

interface Parsed {
  /** Every value of each flag, in order (pflag and curl: the last one wins). */
  flags: Map<string, string[]>;
  positionals: string[];
  /** A word that may turn into several (an unquoted expansion) or a flag name we cannot read. */
  opaque: boolean;
}

/** Parses cobra/pflag- or curl-style arguments: `--name value`, `--name=value`, `-abc`, `-Xvalue`. */
function parseArgs(args: string[], shortWithValue: string, longWithValue: Set<string>, aliases: Record<string, string>): Parsed {
  const flags = new Map<string, string[]>();
  const positionals: string[] = [];
  let opaque = false;
  const put = (name: string, value: string): void => {
    const key = aliases[name] ?? name;
    if (isDynamic(name)) opaque = true;
    if (value.includes(SPLIT)) opaque = true;
    flags.set(key, [...(flags.get(key) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      const name = eq === -1 ? w.slice(2) : w.slice(2, eq);
      if (eq !== -1) put(name, w.slice(eq + 1));
      else if (longWithValue.has(name)) put(name, args[++i] ?? "");
      else put(name, "");
      continue;
    }
    if (w.startsWith("-") && w.length > 1) {
      for (let j = 1; j < w.length; j++) {
        const ch = w[j]!;
        if (w[j + 1] === "=") {
          put(ch, w.slice(j + 2));
          break;
        }
        if (shortWithValue.includes(ch)) {
          put(ch, j + 1 < w.length ? w.slice(j + 1) : (args[++i] ?? ""));
          break;
        }
        put(ch, "");
      }
      continue;
    }
    positionals.push(w);
  }
  return { flags, positionals, opaque };
}

/** A pflag boolean after all its occurrences: the last one wins. */
function boolFlag(values: string[] | undefined): boolean | "unknown" {
  const last = values?.at(-1);
  if (last === undefined) return false;
  if (isDynamic(last)) return "unknown";
  return ["", "true", "t", "1"].includes(last.toLowerCase());
}

/** gh's own commands; anything else is an alias or an extension, whose text we cannot see. */
const GH_COMMANDS = new Set([
  "agent-task",
  "alias",
  "api",
  "attestation",
  "auth",
  "browse",
  "cache",
  "co",
  "codespace",
  "completion",
  "config",
  "copilot",
  "extension",
  "ext",
  "gist",
  "gpg-key",
  "help",
  "issue",
  "label",
  "org",
  "pr",
  "preview",
  "project",
  "release",
  "repo",
  "ruleset",
  "run",
  "search",
  "secret",
  "ssh-key",
  "status",
  "variable",
  "version",
  "workflow",
  "accessibility",
  "licenses",
  "actions",
  "environment",
]);

export interface GhDeps {
  stdin: StdinText;
  note: Note;
  /** Scans a shell script (for `gh alias set --shell`). */
  scan: (script: string) => Verdict;
}

/** gh's global flags before the command: `-R o/r`, `--repo o/r`, `--repo=o/r`, `-Ro/r`. */
function dropGhGlobals(args: string[]): string[] | null {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    const w = args[i]!;
    if (w === "--help" || w === "-h" || w === "--version") return null;
    if (w === "-R" || w === "--repo") i += 2;
    else i += 1;
  }
  return args.slice(i);
}

export function analyzeGh(args: string[], d: GhDeps, hub = false): Verdict {
  const globals = dropGhGlobals(args);
  if (globals === null) return null;
  if (globals.length !== args.length && !hub) {
    // `-R o/r pr review …` is `pr review … -R o/r`: the repo flag belongs to the command too.
    const flags = args.slice(0, args.length - globals.length);
    return analyzeGh([...globals.slice(0, 2), ...flags, ...globals.slice(2)], d, hub);
  }
  const [sub, ...rest] = globals;
  if (sub === undefined) return null;
  if (isDynamic(sub)) return unknown(d.note, "the `gh` subcommand comes from an expansion");
  if (sub === "pr") return analyzeGhPr(rest, d.note);
  if (sub === "api") return analyzeGhApi(rest, d.stdin, d.note);
  if (hub || sub.startsWith("-")) return null;
  if (sub === "alias") return analyzeGhAlias(rest, d);
  if ((sub === "extension" || sub === "ext") && rest[0] === "exec") return unknown(d.note, "`gh extension exec` runs an extension whose code we cannot see");
  if (!GH_COMMANDS.has(sub)) return unknown(d.note, `\`gh ${sub}\` is not a built-in gh command: an alias or extension runs text we cannot see`);
  return null;
}

function analyzeGhAlias(rest: string[], d: GhDeps): Verdict {
  const [verb, ...args] = rest;
  if (verb === "import") return unknown(d.note, "`gh alias import` defines aliases from a file we cannot see");
  if (verb !== "set") return null;
  const parsed = parseArgs(args, "", new Set(), { s: "shell" });
  const [, expansionWord] = parsed.positionals;
  const expansion = expansionWord === "-" ? d.stdin : expansionWord;
  if (expansion === undefined) return null;
  if (expansion === null || isDynamic(expansion) || parsed.opaque) return unknown(d.note, "the `gh alias set` expansion cannot be read");
  if (parsed.flags.has("shell") || expansion.startsWith("!")) return d.scan(expansion.replace(/^!/, ""));
  return d.scan(`gh ${expansion}`);
}

function analyzeGhPr(args: string[], note: Note): Verdict {
  const parsed = parseArgs(args, "bFR", new Set(["body", "body-file", "repo"]), { a: "approve", r: "request-changes", c: "comment", b: "body", F: "body-file", R: "repo", h: "help" });
  const [verb, ...positionals] = parsed.positionals;
  if (verb === undefined) return null;
  if (isDynamic(verb)) return unknown(note, "the `gh pr` subcommand comes from an expansion");
  if (verb !== "review") return null;
  const f = parsed.flags;
  if (boolFlag(f.get("help")) === true) return null;
  const approve = boolFlag(f.get("approve"));
  const changes = boolFlag(f.get("request-changes"));
  if (approve === true) return "APPROVE";
  if (changes === true) return "REQUEST_CHANGES";
  if (parsed.opaque || approve === "unknown" || changes === "unknown" || positionals.some(isDynamic)) {
    return unknown(note, "`gh pr review` has arguments from an expansion (they could be --approve)");
  }
  if (boolFlag(f.get("comment")) === true) return null;
  return unknown(note, "`gh pr review` without --comment (it would ask for a verdict)");
}

const GH_API_LONG = new Set(["method", "field", "raw-field", "header", "input", "jq", "template", "preview", "hostname", "cache"]);

function analyzeGhApi(args: string[], stdin: StdinText, note: Note): Verdict {
  const parsed = parseArgs(args, "XfFHqtp", GH_API_LONG, { X: "method", f: "raw-field", F: "field", H: "header", q: "jq", t: "template", p: "preview" });
  const [endpoint, ...extra] = parsed.positionals;
  if (endpoint === undefined) return null;
  const f = parsed.flags;
  const target: Target | null = endpoint === "graphql" ? "graphql" : targetOf(endpoint.replace(/\{[a-z]+\}/g, "x"), "gh");
  const methods = f.get("method");
  const method = methods?.at(-1);
  const implicitPost = f.has("raw-field") || f.has("field") || f.has("input");
  const writes = method !== undefined ? isDynamic(method) || method.toUpperCase() !== "GET" : implicitPost;
  if (!writes && !parsed.opaque && !extra.some(isDynamic)) return null;
  if (target === null) return null;
  if (parsed.opaque || extra.some(isDynamic)) return unknown(note, "`gh api` has arguments from an expansion");
  const parts: Part[] = [...(f.get("raw-field") ?? []).map((kv) => field(kv, false)), ...(f.get("field") ?? []).map((kv) => field(kv, true))];
  const input = f.get("input")?.at(-1);
  if (input !== undefined) parts.push(input === "-" && stdin !== null ? { kind: "raw", text: stdin } : { kind: "unseen", what: "the request body comes from a file or stdin" });
  return judgeBody(parts, target, note);
}

function pickTarget(targets: Array<Target | null>, opaque: boolean): Target | null {
  for (const t of ["reviews", "graphql", "unknown"] as const) if (targets.includes(t)) return t;
  if (opaque) return "unknown";
  return targets.includes("other") ? "other" : null;
}

/** `-f key=value` / `-F key=value` (`-F key=@file` reads a file). */
function field(kv: string, typed: boolean): Part {
  const eq = kv.indexOf("=");
  const key = eq === -1 ? kv : kv.slice(0, eq);
  const value = eq === -1 ? "" : kv.slice(eq + 1);
  if (typed && value.startsWith("@")) return { kind: "unseen", what: `the field \`${key}\` is read from a file` };
  return { kind: "field", key, value };
}

const CURL_SHORT = "dXHuoFTeAbcDEKmrwxyYzCPQtU";
const CURL_LONG = new Set([
  "data",
  "data-raw",
  "data-binary",
  "data-ascii",
  "data-urlencode",
  "json",
  "request",
  "header",
  "user",
  "output",
  "form",
  "form-string",
  "upload-file",
  "url",
  "referer",
  "user-agent",
  "cookie",
  "cookie-jar",
  "max-time",
  "connect-timeout",
  "retry",
  "proxy",
  "cacert",
  "cert",
  "key",
  "config",
  "write-out",
  "resolve",
  "oauth2-bearer",
  "variable",
  "range",
  "limit-rate",
  "dump-header",
  "output-dir",
  "retry-delay",
  "retry-max-time",
  "unix-socket",
  "connect-to",
  "max-redirs",
  "request-target",
  "url-query",
  "expand-data",
  "expand-url",
  "expand-json",
]);
const CURL_DATA = ["data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "json", "form", "form-string", "upload-file", "expand-data", "expand-json"];

export function analyzeCurl(args: string[], stdin: StdinText, note: Note): Verdict {
  const parsed = parseArgs(args, CURL_SHORT, CURL_LONG, { d: "data", X: "request", H: "header", F: "form", T: "upload-file", G: "get", I: "head", K: "config", g: "globoff" });
  const f = parsed.flags;
  const config = f.get("config");
  if (config !== undefined && !(config.length === 1 && config[0] === "-" && stdin !== null && !isDynamic(stdin))) {
    return unknown(note, "curl reads options from a config file (`-K`) we cannot see");
  }
  const configArgs = config !== undefined && stdin !== null ? curlConfigArgs(stdin) : [];
  if (configArgs.length > 0) return analyzeCurl([...configArgs, ...args.filter((a, i) => a !== "-K" && args[i - 1] !== "-K" && !a.startsWith("--config"))], null, note);
  const urls = [...parsed.positionals, ...(f.get("url") ?? []), ...(f.get("expand-url") ?? [])];
  const requestTarget = f.get("request-target")?.at(-1);
  const globbing = !f.has("globoff");
  const targets = (requestTarget !== undefined ? [requestTarget] : urls).map((u) => (globbing && /[{[]/.test(u) ? "unknown" : targetOf(u, requestTarget !== undefined ? "gh" : "url")));
  const target = pickTarget(targets, parsed.opaque);
  if (target === null) return null;
  const data = CURL_DATA.flatMap((k) => (f.get(k) ?? []).map((v) => ({ k, v })));
  const method = f.get("request")?.at(-1);
  if (f.has("get") || f.has("head")) return null;
  if (method !== undefined ? !isDynamic(method) && ["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase()) : data.length === 0 && !parsed.opaque) return null;
  if (f.has("variable") || f.has("expand-data") || f.has("expand-json")) return unknown(note, "curl builds the body from `--variable` expansions");
  const parts: Part[] = data.map(({ k, v }) => {
    const fromFile = k === "upload-file" || (v.startsWith("@") && k !== "data-raw" && k !== "form-string") || (k === "data-urlencode" && /^[^=]*@/.test(v)) || (k === "form" && /=[@<]/.test(v));
    if (!fromFile) return { kind: "raw", text: k === "form" || k === "form-string" ? v.replace(/^([^=]*)=/, "$1=") : v };
    return (v === "@-" || v === "-") && stdin !== null ? { kind: "raw", text: stdin } : { kind: "unseen", what: "the request body comes from a file or stdin" };
  });
  if (parsed.opaque) parts.push({ kind: "unseen", what: "curl has arguments from an expansion" });
  if (parts.length === 0) parts.push({ kind: "raw", text: "" });
  return judgeBody(parts, target, note);
}

export function analyzeWget(args: string[], stdin: StdinText, note: Note): Verdict {
  const parsed = parseArgs(args, "OoaiePUTtw", new Set(["method", "body-data", "body-file", "post-data", "post-file", "header", "output-document", "user-agent"]), {
    O: "output-document",
    i: "input-file",
    e: "execute",
  });
  const f = parsed.flags;
  if (f.has("input-file") || f.has("execute") || f.has("config")) return unknown(note, "wget reads URLs or options from a file or `-e`");
  const targets = parsed.positionals.map((u) => targetOf(u, "url"));
  const target = pickTarget(targets, parsed.opaque);
  if (target === null) return null;
  const method = f.get("method")?.at(-1);
  const hasBody = ["body-data", "body-file", "post-data", "post-file"].some((k) => f.has(k));
  if (method !== undefined ? !isDynamic(method) && method.toUpperCase() === "GET" : !hasBody) return null;
  const parts: Part[] = [];
  for (const k of ["body-data", "post-data"]) for (const v of f.get(k) ?? []) parts.push({ kind: "raw", text: v });
  for (const k of ["body-file", "post-file"])
    for (const v of f.get(k) ?? []) parts.push(v === "-" && stdin !== null ? { kind: "raw", text: stdin } : { kind: "unseen", what: "the request body comes from a file" });
  if (parsed.opaque) parts.push({ kind: "unseen", what: "wget has arguments from an expansion" });
  return judgeBody(parts.length > 0 ? parts : [{ kind: "raw", text: "" }], target, note);
}

/** httpie's and xh's options that take a value (as the next word or after `=`). */
const HTTPIE_VALUE = new Set([
  "--raw",
  "--auth",
  "-a",
  "--auth-type",
  "-A",
  "--bearer",
  "--session",
  "--session-read-only",
  "--output",
  "-o",
  "--print",
  "-p",
  "--history-print",
  "-P",
  "--pretty",
  "--style",
  "-s",
  "--format-options",
  "--response-charset",
  "--response-mime",
  "--max-redirects",
  "--max-headers",
  "--timeout",
  "--proxy",
  "--verify",
  "--ssl",
  "--ciphers",
  "--cert",
  "--cert-key",
  "--cert-key-pass",
  "--default-scheme",
  "--boundary",
  "--http-version",
  "--resolve",
  "--interface",
  "--unix-socket",
]);

/** httpie / xh: `http POST url event=APPROVE`, `key:=json`, `@file` bodies, `--raw 'body'`. */
export function analyzeHttpie(args: string[], stdin: StdinText, note: Note): Verdict {
  const positionals: string[] = [];
  const raws: string[] = [];
  let ignoreStdin = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!w.startsWith("-") || w === "-") {
      positionals.push(w);
      continue;
    }
    const eq = w.startsWith("--") ? w.indexOf("=") : -1;
    const name = eq === -1 ? w : w.slice(0, eq);
    const value = eq !== -1 ? w.slice(eq + 1) : HTTPIE_VALUE.has(name) ? args[++i] : undefined;
    if (name === "--raw") raws.push(value ?? "");
    if (name === "--ignore-stdin" || name === "-I") ignoreStdin = true;
  }
  let i = 0;
  let method: string | undefined;
  if (positionals[0] !== undefined && (/^[A-Za-z]+$/.test(positionals[0]) || isDynamic(positionals[0])) && positionals.length > 1) method = positionals[i++];
  const url = positionals[i];
  if (url === undefined) return null;
  const target = targetOf(url, "url");
  if (target === null) return null;
  const items = positionals.slice(i + 1).filter((it) => !/^[^=:]*(?:==|:(?!=))/.test(it) || /^[^=:]*:=/.test(it));
  const usesStdin = stdin !== null && !ignoreStdin;
  const effective = method ?? (items.length > 0 || raws.length > 0 || usesStdin ? "POST" : "GET");
  if (!isDynamic(effective) && effective.toUpperCase() === "GET" && raws.length === 0) return null;
  const parts: Part[] = items.map((it) => {
    if (/^[^=:]*(?:=@|:=@|@)/.test(it)) return { kind: "unseen", what: "the request body comes from a file" };
    const m = /^([^=:]*)(:?)=(.*)$/s.exec(it);
    if (!m) return { kind: "raw", text: it };
    return m[2] === ":" ? { kind: "raw", text: `{${JSON.stringify(m[1])}:${m[3]}}` } : { kind: "field", key: m[1]!, value: m[3]! };
  });
  for (const raw of raws) parts.push({ kind: "raw", text: raw });
  if (usesStdin) parts.push({ kind: "raw", text: stdin });
  return judgeBody(parts.length > 0 ? parts : [{ kind: "raw", text: "" }], target, note);
}
