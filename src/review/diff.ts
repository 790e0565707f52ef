import { createHash } from "node:crypto";
import { z } from "zod";

export type Side = "RIGHT" | "LEFT";

export interface DiffLine {
  kind: "add" | "del" | "context";
  /** Line number in the new file (add/context) or old file (del). */
  newLine: number | null;
  oldLine: number | null;
  content: string;
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  header: string;
  lines: DiffLine[];
}

export interface FileDiff {
  path: string;
  previousPath?: string;
  status: string;
  /** false when GitHub sent no patch (binary, or too large): nothing in it can be commented on. */
  hasPatch: boolean;
  hunks: Hunk[];
}

export interface PullDiff {
  files: Map<string, FileDiff>;
}

/** One entry of GitHub's `GET /repos/{o}/{r}/pulls/{n}/files`, the fields we read. */
export const PullFile = z.object({
  filename: z.string(),
  status: z.string().default("modified"),
  patch: z.string().optional(),
  previous_filename: z.string().optional(),
  additions: z.number().optional(),
  deletions: z.number().optional(),
  changes: z.number().optional(),
});
export type PullFile = z.infer<typeof PullFile>;

// `[^]*`, not `.*`: the function context after the second `@@` is file text and may hold \r, U+2028 or U+2029.
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@([^]*)$/;

/** Parses one file's patch as GitHub returns it (hunks only, no `---`/`+++` headers). */
export function parsePatch(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let hunk: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of patch.split("\n")) {
    const header = HUNK_HEADER.exec(raw);
    if (header) {
      oldNo = Number(header[1]);
      newNo = Number(header[3]);
      hunk = { oldStart: oldNo, oldLines: Number(header[2] ?? 1), newStart: newNo, newLines: Number(header[4] ?? 1), header: header[5]!.trim(), lines: [] };
      hunks.push(hunk);
      oldLeft = hunk.oldLines;
      newLeft = hunk.newLines;
      continue;
    }
    if (!hunk || raw.startsWith("\\")) continue;
    const mark = raw[0];
    const content = raw.slice(1);
    if (mark === "+") {
      hunk.lines.push({ kind: "add", newLine: newNo++, oldLine: null, content });
      newLeft--;
    } else if (mark === "-") {
      hunk.lines.push({ kind: "del", newLine: null, oldLine: oldNo++, content });
      oldLeft--;
    } else if (mark === " " || (raw === "" && oldLeft > 0 && newLeft > 0)) {
      hunk.lines.push({ kind: "context", newLine: newNo++, oldLine: oldNo++, content });
      oldLeft--;
      newLeft--;
    }
  }
  return hunks;
}

export function buildPullDiff(files: readonly z.input<typeof PullFile>[]): PullDiff {
  const map = new Map<string, FileDiff>();
  for (const input of files) {
    const f = PullFile.parse(input);
    map.set(f.filename, {
      path: f.filename,
      ...(f.previous_filename !== undefined ? { previousPath: f.previous_filename } : {}),
      status: f.status,
      hasPatch: f.patch !== undefined,
      hunks: f.patch !== undefined ? parsePatch(f.patch) : [],
    });
  }
  return { files: map };
}

function lineNumber(l: DiffLine, side: Side): number | null {
  return side === "RIGHT" ? l.newLine : l.oldLine;
}

/** The lines of one side of a file's diff, in order (RIGHT: added + context, LEFT: deleted + context). */
export function sideLines(file: FileDiff, side: Side): Array<{ line: number; entry: DiffLine; hunk: number }> {
  const out: Array<{ line: number; entry: DiffLine; hunk: number }> = [];
  file.hunks.forEach((h, hi) => {
    for (const l of h.lines) {
      if (side === "RIGHT" && l.kind === "del") continue;
      if (side === "LEFT" && l.kind === "add") continue;
      const n = lineNumber(l, side);
      if (n !== null) out.push({ line: n, entry: l, hunk: hi });
    }
  });
  return out;
}

/** GitHub accepts review comments only on lines that appear in the diff, on their side. */
export function isCommentable(diff: PullDiff, path: string, line: number, side: Side): boolean {
  const file = diff.files.get(path);
  if (!file) return false;
  return sideLines(file, side).some((l) => l.line === line);
}

/** Whether the line was changed by the PR (an added or deleted line), not just shown as context. */
export function isChangedLine(diff: PullDiff, path: string, line: number, side: Side): boolean {
  const file = diff.files.get(path);
  if (!file) return false;
  return sideLines(file, side).some((l) => l.line === line && l.entry.kind !== "context");
}

export function normalizeCode(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

/** The normalised text of the diff line at (path, line, side), or null when the line is not in the diff. */
export function lineTextAt(diff: PullDiff, path: string, line: number, side: Side): string | null {
  const file = diff.files.get(path);
  const hit = file ? sideLines(file, side).find((l) => l.line === line) : undefined;
  return hit ? normalizeCode(hit.entry.content) : null;
}

/**
 * What a finding points at: its path, side, rule and the flagged line's own normalised text. Not the
 * neighbours: editing the next line, a hunk boundary moving or a rebase must not change it.
 */
export function findingKey(path: string, side: Side, rule: string, lineText: string): string {
  return createHash("sha256").update([path, side, rule.trim().toLowerCase(), lineText].join("\u0000")).digest("hex").slice(0, 24);
}

/** The nearest non-blank lines above and below `line` (1-based) in a file's text, normalised. */
export type Neighbours = [above: string | null, below: string | null];

export function neighboursIn(fileLines: readonly string[] | null | undefined, line: number): Neighbours {
  if (!fileLines) return [null, null];
  const pick = (from: number, step: 1 | -1): string | null => {
    for (let i = from; i >= 0 && i < fileLines.length; i += step) {
      const t = normalizeCode(fileLines[i]!);
      if (t !== "") return t;
    }
    return null;
  };
  return [pick(line - 2, -1), pick(line, 1)];
}

export interface Anchor {
  path: string;
  line: number;
  side: Side;
}

/**
 * Every line of the diff, on `side`, of the file now at `path` (or renamed from it) whose normalised
 * text is `lineText`: the places a finding on that text can be anchored at this head.
 */
export function candidatesFor(diff: PullDiff, originalPath: string, side: Side, lineText: string): Anchor[] {
  const hits: Anchor[] = [];
  for (const file of diff.files.values()) {
    if (file.path !== originalPath && file.previousPath !== originalPath) continue;
    for (const l of sideLines(file, side)) if (normalizeCode(l.entry.content) === lineText) hits.push({ path: file.path, line: l.line, side });
  }
  return hits;
}
