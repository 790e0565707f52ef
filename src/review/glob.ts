import ignore, { type Ignore } from "ignore";
import micromatch from "micromatch";

/**
 * A gitignore-style list of patterns, with git's own rules (the `ignore` package): `*`, `?` and `[abc]`
 * stay within a segment, `**` spans segments, a pattern without a `/` (but a trailing one) matches at any
 * depth, a leading `/` anchors, a pattern naming a directory covers everything under it, and a later
 * `!pattern` re-includes what an earlier one matched (not under a directory that stays excluded, as in git).
 * On top of git: `{a,b}` alternates (expanded by micromatch's braces first, so a branch may hold a glob).
 */
interface GitignoreList {
  rules: Ignore;
  /** Each expanded pattern → the pattern as written. */
  written: Map<string, string>;
}

const compiled = new WeakMap<readonly string[], GitignoreList>();

function compile(patterns: readonly string[]): GitignoreList {
  const cached = compiled.get(patterns);
  if (cached) return cached;
  const written = new Map<string, string>();
  for (const p of patterns) {
    for (const one of p.includes("{") ? micromatch.braces(p, { expand: true }) : [p]) if (!written.has(one)) written.set(one, p);
  }
  const list = { rules: ignore({ ignorecase: false, allowRelativePaths: true }).add([...written.keys()]), written };
  compiled.set(patterns, list);
  return list;
}

/** The pattern (as written) that leaves this repo-relative path matched by the list, or null. */
export function matchesAnyGlob(path: string, patterns: readonly string[]): string | null {
  if (patterns.length === 0) return null;
  const { rules, written } = compile(patterns);
  const r = rules.test(path);
  if (!r.ignored) return null;
  const pattern = r.rule?.pattern ?? "";
  return written.get(pattern) ?? pattern;
}
