import { isDynamic } from "./shell-parse.js";

export type Verdict = "APPROVE" | "REQUEST_CHANGES" | "UNKNOWN_REVIEW_POST" | null;
/** What the command reads on stdin, when that is statically known. */
export type StdinText = string | null;

const REVIEWS_PATH = /(?:^|\/)repos\/\S+?\/pulls\/[^/\s]+\/reviews(?:\/[^/\s?#]+\/events)?\/?(?:[?#]|$)/;
const GRAPHQL_PATH = /(?:^|\/)graphql\/?(?:[?#]|$)/;
const MUTATION = /\b(?:addPullRequestReview|submitPullRequestReview)\b/;

/** A body we could not read: a file, stdin we cannot see, or a variable. */
const UNKNOWN_BODY = Symbol("unknown body");
type Body = string | typeof UNKNOWN_BODY;

const TRUE_VALUES = new Set(["", "true", "t", "1", "yes"]);

/** The event values a body or GraphQL document names (`"event":"APPROVE"`, `event: APPROVE`, `event=APPROVE`). */
function eventValues(text: string): string[] {
  const out: string[] = [];
  const re = /\bevent\]?\\*"?\s*[:=]\s*\\*"?(\$?[A-Za-z_\u0001]+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(resolveVariable(text, m[1]!).toUpperCase());
  return out;
}

/** `event: $e` with `-f e=APPROVE` or `"variables":{"e":"APPROVE"}` alongside. */
function resolveVariable(text: string, value: string): string {
  if (!value.startsWith("$")) return value;
  const name = value.slice(1).replace(/[^A-Za-z0-9_]/g, "");
  const re = new RegExp(`(?:^|[\\n{,\\s"])${name}\\\\*"?\\s*[:=]\\s*\\\\*"?([A-Za-z_\u0001]+)`);
  return re.exec(text)?.[1] ?? value;
}

const DYNAMIC_VALUE = (v: string): boolean => v.startsWith("$") || isDynamic(v);

/**
 * Judges a POST to a review endpoint (or GraphQL) from its body parts. A concrete APPROVE /
 * REQUEST_CHANGES wins; an explicit COMMENT passes; anything we cannot see is UNKNOWN_REVIEW_POST.
 */
function judgeBody(parts: Body[], graphql: boolean): Verdict {
  const known = parts.filter((p): p is string => p !== UNKNOWN_BODY);
  const text = known.join("\n");
  const unseen = known.length < parts.length;
  if (graphql && !MUTATION.test(text)) {
    if (unseen) return "UNKNOWN_REVIEW_POST";
    const queries = known.filter((p) => p.startsWith("query="));
    return (queries.length > 0 ? queries : known).some(isDynamic) ? "UNKNOWN_REVIEW_POST" : null;
  }
  const values = eventValues(text);
  if (values.includes("APPROVE")) return "APPROVE";
  if (values.includes("REQUEST_CHANGES")) return "REQUEST_CHANGES";
  if (values.some(DYNAMIC_VALUE)) return "UNKNOWN_REVIEW_POST";
  if (values.includes("COMMENT")) return null;
  if (unseen || isDynamic(text)) return "UNKNOWN_REVIEW_POST";
  if (graphql && /input\s*:\s*\$/.test(text)) return "UNKNOWN_REVIEW_POST";
  return null;
}

interface Cluster {
  flags: Map<string, string>;
  positionals: string[];
}

/**
 * Parses cobra/pflag- or curl-style arguments: `--name value`, `--name=value`, `-abc`, `-Xvalue`.
 * Repeated flags are joined with a newline, which is all the callers need.
 */
function parseArgs(args: string[], shortWithValue: string, longWithValue: Set<string>, aliases: Record<string, string>): Cluster {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  const put = (name: string, value: string): void => {
    const key = aliases[name] ?? name;
    const prev = flags.get(key);
    flags.set(key, prev === undefined ? value : `${prev}\n${value}`);
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
  return { flags, positionals };
}

function isTrue(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value.split("\n").some((v) => TRUE_VALUES.has(v.toLowerCase()) || isDynamic(v));
}

export function analyzeGh(args: string[], stdin: StdinText): Verdict {
  const [sub, ...rest] = args;
  if (sub === "pr") return analyzeGhPrReview(rest);
  if (sub === "api") return analyzeGhApi(rest, stdin);
  return null;
}

function analyzeGhPrReview(args: string[]): Verdict {
  const parsed = parseArgs(args, "bFR", new Set(["body", "body-file", "repo"]), { a: "approve", r: "request-changes", c: "comment", b: "body", F: "body-file", R: "repo", h: "help" });
  if (parsed.positionals[0] !== "review") return null;
  const f = parsed.flags;
  if (f.has("help")) return null;
  if (isTrue(f.get("approve"))) return "APPROVE";
  if (isTrue(f.get("request-changes"))) return "REQUEST_CHANGES";
  if (isTrue(f.get("comment"))) return null;
  // No verdict flag: gh would prompt for one, and a positional from a variable could be a flag.
  return "UNKNOWN_REVIEW_POST";
}

const GH_API_SHORT = "XfFHqtpi";
const GH_API_LONG = new Set(["method", "field", "raw-field", "header", "input", "jq", "template", "preview", "hostname", "cache"]);

function analyzeGhApi(args: string[], stdin: StdinText): Verdict {
  const parsed = parseArgs(args, GH_API_SHORT.replace("i", ""), GH_API_LONG, { X: "method", f: "raw-field", F: "field", H: "header", q: "jq", t: "template", p: "preview" });
  const endpoint = parsed.positionals[0];
  if (endpoint === undefined) return null;
  const graphql = endpoint === "graphql" || GRAPHQL_PATH.test(endpoint);
  const f = parsed.flags;
  if (!graphql && !REVIEWS_PATH.test(endpoint)) return isDynamic(endpoint) ? concreteOnly(judgeBody(ghApiBody(f, stdin), false)) : null;
  const method = f.get("method")?.toUpperCase();
  const implicitPost = f.has("raw-field") || f.has("field") || f.has("input");
  if (method !== undefined ? !(method.includes("POST") || isDynamic(method)) : !implicitPost) return null;
  return judgeBody(ghApiBody(f, stdin), graphql);
}

function ghApiBody(f: Map<string, string>, stdin: StdinText): Body[] {
  const fields = [f.get("raw-field"), f.get("field")].filter((v): v is string => v !== undefined).flatMap((v) => v.split("\n"));
  const parts: Body[] = fields.map((kv) => (/^[^=]*=@/.test(kv) ? UNKNOWN_BODY : kv));
  const input = f.get("input");
  if (input !== undefined) parts.push(input === "-" && stdin !== null ? stdin : UNKNOWN_BODY);
  return parts;
}

/** For a request whose URL we cannot see: block only an explicit verdict in its body. */
function concreteOnly(v: Verdict): Verdict {
  return v === "APPROVE" || v === "REQUEST_CHANGES" ? v : null;
}

const CURL_SHORT = "dXHuoFTeAbcDEKmrwxyYzCPQtU";
const CURL_LONG = new Set([
  "data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "json", "request", "header", "user", "output", "form", "form-string",
  "upload-file", "url", "referer", "user-agent", "cookie", "cookie-jar", "max-time", "connect-timeout", "retry", "proxy", "cacert", "cert",
  "key", "config", "write-out", "resolve", "oauth2-bearer", "variable", "range", "limit-rate", "dump-header", "output-dir", "retry-delay",
  "retry-max-time", "unix-socket", "connect-to", "max-redirs",
]);

export function analyzeCurl(args: string[], stdin: StdinText): Verdict {
  const parsed = parseArgs(args, CURL_SHORT, CURL_LONG, { d: "data", X: "request", H: "header", F: "form", T: "upload-file", G: "get", I: "head", K: "config" });
  const f = parsed.flags;
  const urls = [...parsed.positionals, ...(f.get("url")?.split("\n") ?? [])];
  const target = urls.find((u) => REVIEWS_PATH.test(stripQuery(u)) || GRAPHQL_PATH.test(stripQuery(u)));
  if (target === undefined && !urls.some(isDynamic)) return null;
  const graphql = target !== undefined && GRAPHQL_PATH.test(stripQuery(target)) && !REVIEWS_PATH.test(stripQuery(target));
  const dataFlags = ["data", "data-raw", "data-binary", "data-ascii", "data-urlencode", "json", "form", "form-string", "upload-file"];
  const data = dataFlags.flatMap((k) => (f.has(k) ? f.get(k)!.split("\n").map((v) => ({ k, v })) : []));
  const method = f.get("request")?.toUpperCase();
  if (f.has("get") || f.has("head")) return null;
  if (method !== undefined ? !(method.includes("POST") || isDynamic(method)) : data.length === 0) return null;
  const parts: Body[] = data.map(({ k, v }) => {
    const fromFile = k === "upload-file" || (v.startsWith("@") && k !== "data-raw") || (k === "data-urlencode" && /^[^=]*@/.test(v));
    if (!fromFile) return v;
    return (v === "@-" || v === "-") && stdin !== null ? stdin : UNKNOWN_BODY;
  });
  if (parts.length === 0) parts.push(f.has("config") ? UNKNOWN_BODY : "");
  return target === undefined ? concreteOnly(judgeBody(parts, false)) : judgeBody(parts, graphql);
}

function stripQuery(url: string): string {
  return url.replace(/[?#].*$/, "");
}

export function analyzeWget(args: string[], stdin: StdinText): Verdict {
  const parsed = parseArgs(args, "OoaiePUTtw", new Set(["method", "body-data", "body-file", "post-data", "post-file", "header", "output-document", "user-agent"]), { O: "output-document" });
  const f = parsed.flags;
  const target = parsed.positionals.find((u) => REVIEWS_PATH.test(stripQuery(u)) || GRAPHQL_PATH.test(stripQuery(u)));
  if (target === undefined) return null;
  const graphql = !REVIEWS_PATH.test(stripQuery(target));
  const method = f.get("method")?.toUpperCase();
  const hasBody = ["body-data", "body-file", "post-data", "post-file"].some((k) => f.has(k));
  if (method !== undefined ? !(method.includes("POST") || isDynamic(method)) : !hasBody) return null;
  const parts: Body[] = [];
  for (const k of ["body-data", "post-data"]) if (f.has(k)) parts.push(f.get(k)!);
  for (const k of ["body-file", "post-file"]) if (f.has(k)) parts.push(f.get(k) === "-" && stdin !== null ? stdin : UNKNOWN_BODY);
  return judgeBody(parts.length > 0 ? parts : [""], graphql);
}

/** httpie / xh: `http POST url event=APPROVE`, `key:=json`, `@file` bodies. */
export function analyzeHttpie(args: string[], stdin: StdinText): Verdict {
  const positionals = args.filter((a) => !a.startsWith("-"));
  let i = 0;
  let method: string | undefined;
  if (positionals[0] !== undefined && /^[A-Z]+$/.test(positionals[0])) method = positionals[i++];
  const url = positionals[i];
  if (url === undefined) return null;
  const graphql = GRAPHQL_PATH.test(stripQuery(url)) && !REVIEWS_PATH.test(stripQuery(url));
  if (!graphql && !REVIEWS_PATH.test(stripQuery(url))) return null;
  const items = positionals.slice(i + 1);
  const usesStdin = stdin !== null && !args.includes("--ignore-stdin") && !args.includes("-I");
  if ((method ?? (items.length > 0 || usesStdin ? "POST" : "GET")) !== "POST") return null;
  const parts: Body[] = items.map((it) => (/^[^=:]*(?:=@|:=@|@)/.test(it) ? UNKNOWN_BODY : it.replace(/^([^=:]+):?=/, "$1=")));
  if (usesStdin) parts.push(stdin);
  return judgeBody(parts.length > 0 ? parts : [""], graphql);
}
