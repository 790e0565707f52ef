/**
 * Pure: each test's body and the assertions in it that can still fail. An assertion counts unless it is
 * unreachable (after the body's own `return`/`throw`, inside `if (false)` / `if False:`) or checks only
 * constants (`expect(-3).toBe(-3)`, `assert 1 == 1`): a test rewritten that way still "has" an assertion,
 * but it no longer tests anything.
 */

export interface TestBody {
  /** The test's name, numbered when repeated (`adds`, `adds#2`). */
  name: string;
  body: string;
  /** Assertions that can fail. */
  live: number;
}

const JS_TEST = /(?<![\w.$])(?:it|test|specify)\s*(?:\.\s*\w+\s*(?:\([^()]*\)\s*)?)*\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;

/** From `open` (a `{`), the index just past its matching `}`; strings and comments skipped. */
function matchBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'" || ch === "`") {
      for (i++; i < text.length && text[i] !== ch; i++) if (text[i] === "\\") i++;
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
  }
  return text.length;
}

/** String literals emptied (their quotes kept), so text inside them is never read as code. */
export function blankStrings(code: string): string {
  return code.replace(/(["'`])((?:\\.|(?!\1)[^\\])*)\1/g, (_m, q: string) => `${q}${q}`);
}

const LITERAL = String.raw`(?:-?\d[\d_.eE+-]*n?|""|''|\x60\x60|true|false|null|undefined|NaN|-?Infinity|\[\s*\]|\{\s*\})`;
const CONST_EXPECT = new RegExp(String.raw`^\s*${LITERAL}\s*$`);
const DEAD_IF = /\b(?:if|while)\s*\(\s*(?:false|0|null|undefined|!\s*(?:true|1)|""|'')\s*(?:&&[^)]*)?\)\s*/g;

/** Is the statement at `at` the body of an `if (…)`/`else`/loop head, rather than a statement of its own? */
function conditional(code: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && /\s/.test(code[i]!)) i--;
  if (/\belse$/.test(code.slice(Math.max(0, i - 4), i + 1))) return true;
  if (code[i] !== ")") return false;
  for (let depth = 0; i >= 0; i--) {
    if (code[i] === ")") depth++;
    else if (code[i] === "(" && --depth === 0) break;
  }
  return /\b(?:if|while|for)\s*$/.test(code.slice(Math.max(0, i - 8), i));
}

function liveJsAssertions(body: string): number {
  let code = blankStrings(body.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, ""));
  // `if (false) { … }` / `if (false) expect(…);`: never runs.
  code = code.replace(DEAD_IF, (m, offset: number, all: string) => {
    const at = offset + m.length;
    return all[at] === "{" ? `${m}\u0000DEAD` : `${m}\u0000DEADSTMT`;
  });
  let out = "";
  for (let i = 0; i < code.length; i++) {
    if (code.startsWith("\u0000DEADSTMT", i)) {
      const end = code.indexOf(";", i);
      i = end < 0 ? code.length : end;
      continue;
    }
    if (code.startsWith("\u0000DEAD", i)) {
      i = matchBrace(code, i + 5) - 1;
      continue;
    }
    out += code[i];
  }
  // A `return`/`throw` at the body's own level ends it: what follows never runs.
  let depth = 0;
  let cut = out.length;
  for (let i = 0; i < out.length; i++) {
    const ch = out[i]!;
    if (ch === "{" || ch === "(" || ch === "[") depth++;
    else if (ch === "}" || ch === ")" || ch === "]") depth--;
    else if (depth === 0 && /[rt]/.test(ch) && /^(?:return|throw)\b/.test(out.slice(i)) && !/[\w$.]/.test(out[i - 1] ?? "") && !conditional(out, i)) {
      const end = out.indexOf("\n", i);
      cut = end < 0 ? out.length : end;
      break;
    }
  }
  out = out.slice(0, cut);
  let live = 0;
  // expect(<arg>) and assert…(<args>): live unless the arguments are constants only.
  for (const m of out.matchAll(/(?<![\w.$])(expect(?:\.soft)?|assert(?:\.\w+)?)\s*\(/g)) {
    const start = m.index + m[0].length;
    let depth2 = 1;
    let i = start;
    for (; i < out.length && depth2 > 0; i++) {
      if (out[i] === "(") depth2++;
      else if (out[i] === ")") depth2--;
    }
    const args = out.slice(start, i - 1);
    const constant = args.split(",").every((a) => CONST_EXPECT.test(a) || a.trim() === "");
    if (!constant) live++;
  }
  return live;
}

/** The tests of a JS/TS test file, with their live assertions. */
export function jsTestBodies(text: string): TestBody[] {
  const out: TestBody[] = [];
  const seen = new Map<string, number>();
  for (const m of text.matchAll(JS_TEST)) {
    const from = m.index + m[0].length;
    const open = text.indexOf("{", from);
    if (open < 0) continue;
    const body = text.slice(open, matchBrace(text, open));
    const n = (seen.get(m[2]!) ?? 0) + 1;
    seen.set(m[2]!, n);
    out.push({ name: n === 1 ? m[2]! : `${m[2]}#${n}`, body, live: liveJsAssertions(body.slice(1, -1)) });
  }
  return out;
}

const PY_LITERAL = /^(?:-?\d[\d_.eEjJ+-]*|True|False|None|"[^"]*"|'[^']*'|\(\s*\)|\[\s*\]|\{\s*\})$/;

function livePyAssertions(lines: readonly string[]): number {
  let live = 0;
  const base = lines.find((l) => l.trim())?.match(/^\s*/)?.[0].length ?? 0;
  let deadIndent = -1;
  for (const line of lines) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    const indent = line.match(/^\s*/)![0].length;
    if (deadIndent >= 0) {
      if (indent > deadIndent) continue;
      deadIndent = -1;
    }
    if (indent === base && /^(?:return|raise)\b/.test(t)) break;
    if (/^(?:if|while)\s+(?:False|0|None|not\s+True)\s*:/.test(t)) {
      deadIndent = indent;
      continue;
    }
    const a = /^assert\s+(.+?)(?:,\s*["'].*)?$/.exec(t);
    if (a) {
      const operands = a[1]!.split(/\s*(?:==|!=|<=|>=|<|>|\bis\s+not\b|\bis\b|\bnot\s+in\b|\bin\b|\band\b|\bor\b)\s*/);
      if (!operands.every((o) => PY_LITERAL.test(o.replace(/^not\s+/, "").trim()))) live++;
      continue;
    }
    if (/\bpytest\.raises\s*\(|\bself\.assert\w*\s*\(|(?<![\w.])assert_\w+\s*\(/.test(t)) live++;
  }
  return live;
}

/** The tests (`def test_…`) of a Python test file, with their live assertions. */
export function pyTestBodies(text: string): TestBody[] {
  const lines = text.split("\n");
  const out: TestBody[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(/.exec(lines[i]!);
    if (!m) continue;
    const indent = m[1]!.length;
    let j = i + 1;
    while (j < lines.length && (!lines[j]!.trim() || lines[j]!.match(/^\s*/)![0].length > indent)) j++;
    const body = lines.slice(i + 1, j);
    const n = (seen.get(m[2]!) ?? 0) + 1;
    seen.set(m[2]!, n);
    out.push({ name: n === 1 ? m[2]! : `${m[2]}#${n}`, body: body.join("\n"), live: livePyAssertions(body) });
  }
  return out;
}

export function testBodies(path: string, text: string): TestBody[] | null {
  if (/\.[cm]?[jt]sx?$/i.test(path)) return jsTestBodies(text);
  if (/\.py$/i.test(path)) return pyTestBodies(text);
  return null;
}

/** Tests whose body changed and lost every assertion that could fail: `name (why)`. */
export function hollowedTests(path: string, before: string, after: string): string[] {
  const a = testBodies(path, before);
  const b = testBodies(path, after);
  if (!a || !b) return [];
  const old = new Map(a.map((t) => [t.name, t]));
  const out: string[] = [];
  for (const t of b) {
    const was = old.get(t.name);
    if (!was || was.body === t.body) continue;
    if (was.live > 0 && t.live === 0) out.push(t.name);
  }
  return out;
}
