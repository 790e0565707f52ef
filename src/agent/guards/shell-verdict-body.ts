import { isDynamic } from "./shell-words.js";

export type Verdict = "APPROVE" | "REQUEST_CHANGES" | "UNKNOWN_REVIEW_POST" | null;
/** Records why a command was judged UNKNOWN_REVIEW_POST, in words the model can act on. */
export type Note = (reason: string) => void;

export function unknown(note: Note, reason: string): Verdict {
  note(reason);
  return "UNKNOWN_REVIEW_POST";
}

/**
 * Where a request goes: a review endpoint, GraphQL, a URL we cannot read, or an unreadable path on a
 * host that is not GitHub's (`other`: only a body that names a verdict is blocked — it could be a relay).
 */
export type Target = "reviews" | "graphql" | "unknown" | "other";

/** One piece of a request body: a `key=value` field (gh -f, httpie), raw text (curl -d, --input), or unseen (a file). */
export type Part = { kind: "field"; key: string; value: string } | { kind: "raw"; text: string } | { kind: "unseen"; what: string };

const REVIEWS_PATH = /\/pulls\/[^/]+\/reviews(?:\/[^/]+\/events)?\/?$/;
const GRAPHQL_PATH = /\/graphql\/?$/;
const REVIEW_MUTATION = /addPullRequestReview\b|submitPullRequestReview/i;

/** The path a URL or gh endpoint names, as the server would route it: decoded, dot-segments resolved, lower case. */
export function normalizePath(url: string): string {
  let path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").replace(/[?#].*$/s, "");
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(path); i++) {
    try {
      path = decodeURIComponent(path);
    } catch {
      break;
    }
  }
  const segments: string[] = [];
  for (const seg of `/${path}`.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") segments.pop();
    else segments.push(seg);
  }
  return `/${segments.join("/")}`.toLowerCase();
}

/**
 * `reviews` / `graphql` for an endpoint that reaches them, `unknown` when it cannot be read, else null.
 * A gh endpoint is always GitHub's; a URL whose host is literal and not GitHub's (`localhost:$PORT/x`)
 * cannot reach the review API through an unreadable path.
 */
export function targetOf(url: string, kind: "gh" | "url"): Target | null {
  if (kind === "url") {
    const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)(.*)$/is.exec(url);
    const name = (m?.[1] ?? "").replace(/^[^@]*@/, "").replace(/:[^:]*$/, "");
    const path = m?.[2] ?? "";
    const githubish = /github|ghe\.com/i.test(name) || /^\/api\/(?:v3|graphql)/i.test(path);
    if (isDynamic(name) || name === "") return "unknown";
    if (isDynamic(url) && !githubish && !/\/pulls\/|graphql/i.test(url)) return "other";
  }
  if (isDynamic(url)) return "unknown";
  const path = normalizePath(url);
  if (REVIEWS_PATH.test(path)) return "reviews";
  if (GRAPHQL_PATH.test(path) || path === "/graphql") return "graphql";
  return null;
}

/** Flattens a JSON value into `key=value` lines (any depth), so escapes and nesting cannot hide a field. */
function flatten(value: unknown, key: string, out: string[]): void {
  if (Array.isArray(value)) for (const v of value) flatten(v, key, out);
  else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) flatten(v, k, out);
  else out.push(`${key}=${String(value)}`);
}

/** Raw body text as the server will read it; null when it is encoded in a way we do not undo. */
function decodeRaw(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const out: string[] = [];
      flatten(JSON.parse(trimmed), "", out);
      // The raw text too: with a key given twice, parsers differ on which one wins.
      return [...out, text].join("\n");
    } catch {
      // not JSON: read it as text below
    }
  }
  if (/\\u[0-9a-f]{4}|\\x[0-9a-f]{2}/i.test(text)) return null;
  if (/%[0-9a-f]{2}/i.test(text)) {
    try {
      return decodeURIComponent(text.replace(/\+/g, " "));
    } catch {
      return null;
    }
  }
  return text;
}

function stripGraphqlComments(text: string): string {
  return text.replace(/#[^\n"]*$/gm, " ");
}

const VERDICT_KEY = /^(?:event|query|input|variables|.*\[event\]|input\[.*)$/i;

/**
 * Judges a write to a review endpoint, GraphQL, or a URL we cannot read, from its body. A concrete
 * APPROVE / REQUEST_CHANGES wins; an explicit COMMENT or a body that cannot carry a verdict passes;
 * anything that could carry one but cannot be read is UNKNOWN_REVIEW_POST.
 */
export function judgeBody(parts: Part[], target: Target, note: Note): Verdict {
  const lines: string[] = [];
  const unseen: string[] = [];
  for (const p of parts) {
    if (p.kind === "unseen") unseen.push(p.what);
    else if (p.kind === "field") {
      if (isDynamic(p.key) || (VERDICT_KEY.test(p.key) && isDynamic(p.value))) unseen.push(`the field \`${p.key.replace(/\u0001/g, "$…")}\` comes from an expansion`);
      const decoded = p.key === "query" || p.key === "variables" ? (decodeRaw(p.value) ?? p.value) : p.value;
      lines.push(p.key === "variables" ? decoded : `${p.key}=${decoded}`);
    } else {
      if (isDynamic(p.text)) unseen.push("the request body comes from an expansion");
      const decoded = decodeRaw(p.text);
      if (decoded === null) unseen.push("the request body uses escapes (\\u, \\x) we do not decode");
      else lines.push(decoded);
    }
  }
  const text = stripGraphqlComments(lines.join("\n"));
  const mutation = REVIEW_MUTATION.test(text);
  const values = eventValues(text);
  if (values.includes("APPROVE") || (mutation && /\bAPPROVE\b/i.test(text))) return "APPROVE";
  if (values.includes("REQUEST_CHANGES") || (mutation && /\bREQUEST_CHANGES\b/i.test(text))) return "REQUEST_CHANGES";
  if (target === "other") return null;
  if (unseen.length > 0) return unknown(note, `${unseen[0]}, so its review event cannot be checked`);
  if (target === "graphql" && !mutation) return null;
  if (target === "unknown" && !mutation && values.length === 0) return null;
  if (values.some((v) => v === "" || v.startsWith("$") || isDynamic(v))) return unknown(note, "the review event is not a literal value");
  if (mutation && values.length === 0 && (/submitPullRequestReview/i.test(text) || /input\s*:\s*\$/.test(text))) {
    return unknown(note, "the review mutation's event is not in the request");
  }
  return null;
}

/** The event values a body names (`event=APPROVE`, `event: APPROVE`, `event: $e` resolved from `e=…`). */
function eventValues(text: string): string[] {
  const out: string[] = [];
  const re = /\bevent\]?"?\s*[:=]\s*"?(\$?[A-Za-z_\u0001]*)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(resolveVariable(text, m[1]!).toUpperCase());
  return out;
}

function resolveVariable(text: string, value: string): string {
  if (!value.startsWith("$")) return value;
  const name = value.slice(1).replace(/[^A-Za-z0-9_]/g, "");
  const m = new RegExp(`(?:^|\\n)${name}=([A-Za-z_\u0001]+)\\s*$`, "m").exec(text);
  return m?.[1] ?? value;
}
