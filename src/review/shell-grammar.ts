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

/** Parses a bash script; `fn` reads the tree, which is freed afterwards. */
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
    return fn(tree.rootNode, tree.rootNode.hasError);
  } finally {
    tree.delete();
  }
}
