import { createRequire } from "node:module";
import { Language, Parser, type Node, type Tree } from "web-tree-sitter";

export type { Node as ShellNode };

const require = createRequire(import.meta.url);

// Loaded once at module load: after this, parsing is synchronous (tree-sitter-bash, compiled to WASM).
await Parser.init();
const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
let parser = newParser();

function newParser(): Parser {
  const p = new Parser();
  p.setLanguage(bash);
  return p;
}

/**
 * Parses a bash script; `fn` reads the tree, which is freed afterwards. `hasError` is also set when
 * tree-sitter dropped source text without an ERROR node (it happens), so callers can fail closed.
 */
export function withBashTree<T>(script: string, fn: (root: Node, hasError: boolean) => T): T {
  let tree: Tree | null;
  try {
    tree = parser.parse(script);
  } catch (err) {
    parser = newParser(); // a trap inside the WASM may leave the old parser unusable
    throw err;
  }
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    return fn(tree.rootNode, tree.rootNode.hasError || uncovered(tree.rootNode, script));
  } finally {
    tree.delete();
  }
}

/** tree-sitter sometimes drops a token without reporting an error: treat source text no node covers as one. */
function uncovered(root: Node, src: string): boolean {
  let cursor = 0;
  const pending: Node[] = [root];
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n.childCount === 0 || ATOMIC.has(n.type)) {
      if (n.startIndex > cursor && hasToken(src.slice(cursor, n.startIndex))) return true;
      cursor = Math.max(cursor, n.endIndex);
      continue;
    }
    pending.push(...n.children.reverse());
  }
  return hasToken(src.slice(cursor));
}

const ATOMIC = new Set(["heredoc_body", "string", "raw_string", "ansi_c_string", "comment"]);

/** Text outside every node that bash would read as a word (a lone `-` before `<<` is re-attached by the walker). */
function hasToken(gap: string): boolean {
  return /[^\s\\]/.test(gap.replace(/(^|\s)-(?=\s|$)/g, " "));
}
