import { existsSync } from "node:fs";
import { html as diffHtml } from "diff2html";
import { ColorSchemeType } from "diff2html/lib/types.js";
import { mirrorPath } from "../sandbox/workspace/mirror.js";
import { hostGit } from "../sandbox/workspace/host-git.js";

/** Past either cap the page says how many files changed instead of rendering them. */
export const DIFF_CAPS = { files: 100, changedLines: 5_000, bytes: 1_000_000 };

export type PushedDiff =
  | { kind: "none" }
  | { kind: "missing"; sha: string }
  /** The pushed commit is on the default branch already (merged): no base to compare it with. */
  | { kind: "merged"; sha: string }
  | { kind: "too_large"; sha: string; base: string; files: number; changedLines: number }
  | { kind: "shown"; sha: string; base: string; files: number; html: string };

/** Pure: is a diff of this size shown? `numstat` is `git diff --numstat`'s output (binary files: "-"). */
export function diffSize(numstat: string): { files: number; changedLines: number } {
  const rows = numstat.split("\n").filter((l) => l.trim() !== "");
  const changedLines = rows.reduce((n, l) => {
    const [add, del] = l.split("\t");
    return n + (Number(add) || 0) + (Number(del) || 0);
  }, 0);
  return { files: rows.length, changedLines };
}

export function tooLarge(size: { files: number; changedLines: number }, caps = DIFF_CAPS): boolean {
  return size.files > caps.files || size.changedLines > caps.changedLines;
}

/** Pure: each file's sideways-scrolling diff can take focus, so a keyboard can scroll it (no script needed). */
export function keyboardScrollable(markup: string): string {
  return markup.replaceAll('<div class="d2h-file-diff">', '<div class="d2h-file-diff" tabindex="0">');
}

/**
 * What the run pushed, from the host's mirror (the push went through it, so its commit is there):
 * the default branch's merge base with the pushed commit … the pushed commit, rendered server-side by
 * diff2html (no client script). `sha` comes from the run record, written by the worker.
 */
export async function readPushedDiff(mirrorRoot: string, repo: string, sha: string | undefined, caps = DIFF_CAPS): Promise<PushedDiff> {
  if (!sha) return { kind: "none" };
  if (!/^[0-9a-f]{40}$/.test(sha)) return { kind: "missing", sha };
  const mirror = mirrorPath(mirrorRoot, repo);
  if (!existsSync(mirror)) return { kind: "missing", sha };
  const git = (...args: string[]) => hostGit(["-C", mirror, ...args], { timeoutMs: 30_000 });
  const base = await git("merge-base", "HEAD", sha).then(
    (s) => s.trim(),
    () => null,
  );
  if (!base) return { kind: "missing", sha };
  if (base === sha) return { kind: "merged", sha };
  const size = diffSize(await git("diff", "--no-ext-diff", "--no-textconv", "--numstat", base, sha));
  if (tooLarge(size, caps)) return { kind: "too_large", sha, base, ...size };
  const patch = await git("diff", "--no-ext-diff", "--no-textconv", "--no-color", base, sha);
  if (Buffer.byteLength(patch) > caps.bytes) return { kind: "too_large", sha, base, ...size };
  const html = diffHtml(patch, { drawFileList: true, matching: "none", outputFormat: "line-by-line", colorScheme: ColorSchemeType.AUTO, renderNothingWhenEmpty: false });
  return { kind: "shown", sha, base, files: size.files, html: keyboardScrollable(html) };
}
