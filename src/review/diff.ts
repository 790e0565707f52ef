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

const CONTEXT_RADIUS = 1;

/**
 * The normalized code around each line of one side: the line itself (marked `> `) and its nearest
 * non-blank neighbours inside the same hunk. Whitespace-only edits and blank-line shuffles do not change it.
 */
export function sideContexts(file: FileDiff, side: Side): Map<number, string[]> {
  const lines = sideLines(file, side);
  const norm = lines.map((l) => normalizeCode(l.entry.content));
  const out = new Map<number, string[]>();
  lines.forEach((l, at) => {
    const pick = (step: 1 | -1): string[] => {
      const got: string[] = [];
      for (let i = at + step; i >= 0 && i < lines.length && got.length < CONTEXT_RADIUS; i += step) {
        if (lines[i]!.hunk !== l.hunk) break;
        if (norm[i] !== "") got.push(norm[i]!);
      }
      return step === -1 ? got.reverse() : got;
    };
    out.set(l.line, [...pick(-1), `> ${norm[at]!}`, ...pick(1)]);
  });
  return out;
}

export function codeContext(diff: PullDiff, path: string, line: number, side: Side): string[] | null {
  const file = diff.files.get(path);
  return file ? (sideContexts(file, side).get(line) ?? null) : null;
}

export function fingerprintOf(path: string, context: readonly string[], rule: string): string {
  return createHash("sha256").update([path, rule.trim().toLowerCase(), ...context].join("\u0000")).digest("hex").slice(0, 24);
}

/** The fingerprint of a finding on (path, line, side) of this diff, or null when the line is not in it. */
export function fingerprintAt(diff: PullDiff, path: string, line: number, side: Side, rule: string): string | null {
  const context = codeContext(diff, path, line, side);
  return context === null ? null : fingerprintOf(path, context, rule);
}

export interface Anchor {
  path: string;
  line: number;
  side: Side;
}

/**
 * Where a fingerprint sits in this diff: every (path, line, side) whose fingerprint matches.
 * A renamed file is searched under its new name with the fingerprint computed from the old one.
 */
export function locateFingerprint(diff: PullDiff, originalPath: string, rule: string, fingerprint: string): Anchor[] {
  const hits: Anchor[] = [];
  for (const file of diff.files.values()) {
    if (file.path !== originalPath && file.previousPath !== originalPath) continue;
    for (const side of ["RIGHT", "LEFT"] as const) {
      for (const [line, context] of sideContexts(file, side)) {
        if (fingerprintOf(originalPath, context, rule) === fingerprint) hits.push({ path: file.path, line, side });
      }
    }
  }
  return hits;
}
