import { createRequire } from "node:module";
import { Language, Parser, type Node, type Tree } from "web-tree-sitter";

export type { Node as ShellNode };

const require = createRequire(import.meta.url);

// Loaded once at module load: after this, parsing is synchronous (tree-sitter-bash, compiled to WASM).
await Parser.init();
const bash = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
const parser = new Parser();
parser.setLanguage(bash);

/** Parses a bash script; `fn` reads the tree, which is freed afterwards. */
export function withBashTree<T>(script: string, fn: (root: Node, hasError: boolean) => T): T {
  const tree: Tree | null = parser.parse(script);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    return fn(tree.rootNode, tree.rootNode.hasError);
  } finally {
    tree.delete();
  }
}
