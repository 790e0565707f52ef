import { unknown, type Note, type Verdict } from "./shell-verdict-body.js";
import { decodeAnsiC } from "./shell-static.js";
import { isDynamic } from "./shell-words.js";

export interface CodeDeps {
  note: Note;
  /** Scans a shell command line found in the code. */
  scan: (script: string) => Verdict;
}

const SPAWNS =
  /\b(?:system|popen|subprocess|spawn(?:Sync)?|exec(?:Sync|File|FileSync|vp?|lp?)?|child_process|Popen|check_output|check_call|getoutput|IO\.popen|Open3|shell_exec|passthru|proc_open|Deno\.Command|Bun\.spawn|qx)\b|`|\|\s*getline|print[^;}\n]*\|\s*"/;
const HTTP =
  /\b(?:requests|urllib\d?|http\.client|httpx|aiohttp|fetch|axios|got|https?\.(?:request|get)|XMLHttpRequest|Net::HTTP|LWP|HTTP::Tiny|curl_\w+|file_get_contents|open-uri|URI\.open|octokit|Octokit|PyGithub|github3?|Github|ghapi|graphql)\b/i;
const OBFUSCATION =
  /b64decode|base64|atob|fromCharCode|\bchr\s*\(|\.decode\s*\(|codecs|unhexlify|fromhex|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\[0-7]{3}|\[::-1\]|\.reverse\s*\(|\beval\s*\(|\bexec\s*\(|\bcompile\s*\(|rot_?13|zlib|gzip|\bpack\s*\(|Buffer\.from|\.join\s*\(\s*(?:''|"")\s*\)|sprintf|%c/i;
/** Signs that code writes (a POST, a body, a review-creating call) rather than reads. */
const WRITES =
  /\b(?:post|put|patch)\b|method\s*[:=](?!\s*['"`]?(?:GET|HEAD)\b)|\brequest\s*\(|\b(?:data|body|json)\s*[:=]|Net::HTTP::(?:Post|Put|Patch)|createReview|submitReview|create_review|submit_review|addPullRequestReview|submitPullRequestReview/i;
const REVIEW_API = /\/pulls\/[^/\s'"]+\/reviews|\bcreateReview\b|\bsubmitReview\b|\bcreate_review\b|\bsubmit_review\b|addPullRequestReview|submitPullRequestReview/i;

/** String literals in code ('…', "…", `…`), with backslash escapes decoded where we can. */
function literals(code: string): string[] {
  const out: string[] = [];
  const re = /'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|`((?:\\.|[^`\\])*)`/gs;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? "";
    out.push(decodeAnsiC(raw) ?? raw);
  }
  return out;
}

/**
 * Inline code for an interpreter (`python -c`, `node -e`, `perl -e`, `awk '…'`, a script on stdin).
 * Code can compute any string, so this is a screen, not a proof: shell commands it spawns from
 * literals are scanned, review API calls are judged by their literal event, and code that both
 * builds text at run time (decoding, char codes, eval) and makes requests or spawns processes is
 * treated as unreadable.
 */
export function analyzeCode(code: string, d: CodeDeps): Verdict {
  const spawns = SPAWNS.test(code);
  const http = HTTP.test(code);
  let verdict: Verdict = null;
  if (spawns) {
    const lits = literals(code);
    const candidates = [...lits.filter((l) => /\s/.test(l)), lits.join(" "), lits.join("")];
    for (const c of candidates) {
      const v = d.scan(c);
      if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
      if (v === "UNKNOWN_REVIEW_POST") verdict = v;
    }
  }
  // Code that neither makes requests nor runs commands (nor loads anything that could) posts nothing:
  // printing an object with a reviews path in it is not a review.
  const reaches = spawns || http || /\brequire\b|\bimport\b|\.request\s*\(|\bsocket\b|\bconnect\s*\(/.test(code);
  if (reaches && REVIEW_API.test(code) && WRITES.test(code)) {
    if (/\bAPPROVE\b/i.test(code)) return "APPROVE";
    if (/\bREQUEST_CHANGES\b/i.test(code)) return "REQUEST_CHANGES";
    if (!/\bCOMMENT\b/.test(code)) return unknown(d.note, "inline code calls the review API with an event we cannot read");
  }
  if (http && WRITES.test(code) && /api\.github|\/api\/v3|graphql/i.test(code)) {
    return unknown(d.note, "inline code writes to the GitHub API (nothing in a sandbox needs to; use the host-side tools)");
  }
  if ((spawns || http) && OBFUSCATION.test(code)) return unknown(d.note, "inline code builds text at run time (decoding, char codes, eval) and then makes requests or runs commands");
  if ((spawns || http) && isDynamic(code)) return unknown(d.note, "inline code comes partly from an expansion");
  return verdict;
}

/** GNU sed's `e` command and `s///e` flag run text as a shell command. */
export function analyzeSed(args: string[], d: CodeDeps): Verdict {
  const scripts: string[] = [];
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w === "-e" || w === "--expression") scripts.push(args[++i] ?? "");
    else if (w.startsWith("--expression=")) scripts.push(w.slice(13));
    else if (w === "-f" || w === "--file" || w.startsWith("--file=")) fromFile = true;
    else if (!w.startsWith("-") && scripts.length === 0) scripts.push(w);
  }
  if (args.includes("--sandbox")) return null;
  if (fromFile) return null; // a script file is as invisible as `bash script.sh`
  let verdict: Verdict = null;
  for (const script of scripts) {
    if (isDynamic(script) && /e/.test(script)) return unknown(d.note, "the sed script comes from an expansion");
    for (const m of script.matchAll(/(?:^|[;\n{}]|[0-9$/])\s*e\s+([^;\n}]*)/g)) {
      const v = d.scan(m[1]!);
      if (v) verdict = v;
    }
    const bareE = /(?:^|[;\n{}]|[0-9$/])\s*e\s*(?:$|[;\n}])/.test(script);
    const substE = [...script.matchAll(/s(.)(?:\\.|(?!\1)[^\\])*\1((?:\\.|(?!\1)[^\\])*)\1([a-zA-Z0-9]*)/g)].filter((m) => m[3]!.includes("e"));
    for (const m of substE) {
      const v = d.scan(m[2]!);
      if (v === "APPROVE" || v === "REQUEST_CHANGES") return v;
    }
    if (bareE || substE.length > 0) return verdict ?? unknown(d.note, "sed's `e` runs text as a shell command, and that text depends on the input");
  }
  return verdict;
}
