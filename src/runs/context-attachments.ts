import { HumanMessage } from "@langchain/core/messages";
import { posix } from "node:path";
import { hostGit } from "../sandbox/workspace/host-git.js";

/** A file larger than this is named, not attached. */
export const MAX_CONTEXT_FILE_BYTES = 512 * 1024;
/** All attached files together, at most. */
export const MAX_CONTEXT_TOTAL_BYTES = 1024 * 1024;
export const MAX_CONTEXT_PATHS = 10;
/** A directory is attached as its tree to this depth. */
export const CONTEXT_TREE_DEPTH = 4;
const MAX_TREE_ENTRIES = 2_000;

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** A path inside the repository (relative, no `..`), normalised; null for anything else. */
export function repoPath(p: string): string | null {
  const trimmed = p
    .trim()
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (trimmed === "" || trimmed === ".") return "";
  if (trimmed.startsWith("/") || trimmed.includes("\0")) return null;
  const norm = posix.normalize(trimmed);
  return norm === ".." || norm.startsWith("../") ? null : norm;
}

/** `a/b/c` paths → an indented tree to `depth` levels below the root, dotfiles left out (pure). */
export function renderTree(paths: readonly string[], depth: number): string {
  const lines = new Set<string>();
  for (const p of paths) {
    const parts = p.split("/");
    if (parts.some((x) => x.startsWith("."))) continue;
    for (let i = 0; i < Math.min(parts.length, depth); i += 1) {
      const isDir = i < parts.length - 1;
      lines.add(`${parts.slice(0, i + 1).join("/")}${isDir ? "/" : ""}`);
    }
  }
  return [...lines]
    .sort()
    .map((l) => {
      const segs = l.replace(/\/$/, "").split("/");
      return `${"  ".repeat(segs.length - 1)}${segs.at(-1)}${l.endsWith("/") ? "/" : ""}`;
    })
    .join("\n");
}

async function objectType(mirror: string, spec: string): Promise<string | null> {
  return (await hostGit(["-C", mirror, "cat-file", "-t", spec]).catch(() => null))?.trim() ?? null;
}

/**
 * `--context` paths read from the host mirror at the run's commit (never the sandbox): a file's text
 * up to MAX_CONTEXT_FILE_BYTES, a directory as its tree to CONTEXT_TREE_DEPTH; anything else is a block
 * that says why it is not attached. Returns one text block per path.
 */
export async function readContextAttachments(mirror: string, commit: string, paths: readonly string[]): Promise<string[]> {
  const blocks: string[] = [];
  let total = 0;
  for (const raw of paths.slice(0, MAX_CONTEXT_PATHS)) {
    const path = repoPath(raw);
    const skipped = (why: string) => blocks.push(`<context_skipped path="${esc(raw)}">${esc(why)}</context_skipped>`);
    if (path === null) {
      skipped("not a path inside the repository");
      continue;
    }
    const type = await objectType(mirror, `${commit}:${path}`);
    if (type === "tree") {
      const listing = await hostGit(["-C", mirror, "ls-tree", "-r", "--name-only", "-z", commit, "--", ...(path ? [`${path}/`] : [])]);
      const rel = listing
        .split("\0")
        .filter(Boolean)
        .slice(0, MAX_TREE_ENTRIES)
        .map((p) => (path ? p.slice(path.length + 1) : p));
      blocks.push(`<context_directory path="${esc(path || ".")}">\n${renderTree(rel, CONTEXT_TREE_DEPTH)}\n</context_directory>`);
      continue;
    }
    if (type !== "blob") {
      skipped(type === null ? `not found at ${commit.slice(0, 12)}` : `a ${type}, not a file`);
      continue;
    }
    const mode = (await hostGit(["-C", mirror, "ls-tree", commit, "--", path])).split(/\s/)[0];
    if (mode === "120000") {
      skipped("a symbolic link, not attached");
      continue;
    }
    const size = Number((await hostGit(["-C", mirror, "cat-file", "-s", `${commit}:${path}`])).trim());
    if (size > MAX_CONTEXT_FILE_BYTES) {
      skipped(`larger than ${MAX_CONTEXT_FILE_BYTES / 1024} KB (${size} bytes): read it in the sandbox`);
      continue;
    }
    if (total + size > MAX_CONTEXT_TOTAL_BYTES) {
      skipped(`the attachments would pass ${MAX_CONTEXT_TOTAL_BYTES / 1024} KB together: read it in the sandbox`);
      continue;
    }
    const text = await hostGit(["-C", mirror, "cat-file", "blob", `${commit}:${path}`]);
    if (text.includes("\0")) {
      skipped("a binary file, not attached");
      continue;
    }
    total += size;
    blocks.push(`<context_file path="${esc(path)}">\n${text}\n</context_file>`);
  }
  for (const raw of paths.slice(MAX_CONTEXT_PATHS)) blocks.push(`<context_skipped path="${esc(raw)}">more than ${MAX_CONTEXT_PATHS} context paths</context_skipped>`);
  return blocks;
}

/** `--context <path>` (or `--context=<path>`) options written in a request, in order (pure). */
export function requestContextPaths(text: string): string[] {
  return [...text.matchAll(/(?:^|\s)--context(?:=|\s+)(\S+)/g)].map((m) => m[1]!);
}

/** The message with context blocks after its content (text or blocks). */
export function withContextBlocks(message: HumanMessage, blocks: readonly string[]): HumanMessage {
  if (blocks.length === 0) return message;
  const head = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  return new HumanMessage({ content: [...head, ...blocks.map((text) => ({ type: "text", text }))] as never });
}
