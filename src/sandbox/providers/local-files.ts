import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { RunProcessResult } from "../run-process.js";
import { shellQuote } from "../../shared/shell-quote.js";
import type { DownloadResult, FileErrorCode, UploadFile, UploadResult } from "../types.js";

/** Runs a shell script inside the sandbox with raw bytes in and out (what LocalSandbox's exec is built on). */
export type InsideRunner = (script: string, opts: { stdin?: Uint8Array; maxOutputBytes: number; timeoutMs: number }) => Promise<RunProcessResult>;

/** Largest file a download returns (a push bundle is the biggest thing read this way). */
export const MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
/** `sh -c` takes its script as one argument, which Linux caps at 128 KiB: batches stay well under it. */
const MAX_SCRIPT_BYTES = 64 * 1024;
const TIMEOUT_MS = 5 * 60_000;

const CODES: Record<string, FileErrorCode> = { "12": "file_not_found", "13": "permission_denied", "14": "is_directory" };

/**
 * File transfer into a local sandbox's workspace, done inside the sandbox by its own processes: the
 * host never opens, creates or follows a path the sandbox controls, so a planted symlink or a
 * directory swapped mid-operation can only redirect the sandbox into its own view. Writes go to a
 * temporary file renamed over the target, so concurrent writers never interleave bytes.
 */
export class LocalWorkspaceFiles {
  constructor(
    private readonly workdir: string,
    private readonly run: InsideRunner,
  ) {}

  /** The absolute sandbox path for `sandboxPath` when it lies under `workdir` (lexically), else undefined. */
  resolve(sandboxPath: string): string | undefined {
    const abs = posix.normalize(posix.isAbsolute(sandboxPath) ? sandboxPath : posix.join(this.workdir, sandboxPath)).replace(/\/+$/, "");
    if (abs === this.workdir || abs.startsWith(`${this.workdir}/`)) return abs;
    return undefined;
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    const results: UploadResult[] = files.map((f) => ({ path: f.path }));
    let batch: number[] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length > 0) await this.writeBatch(files, batch, results);
      batch = [];
      size = 0;
    };
    for (const [i, f] of files.entries()) {
      const abs = this.resolve(f.path);
      if (!abs || abs === this.workdir || abs.includes("\0")) {
        results[i] = { path: f.path, error: "invalid_path" };
        continue;
      }
      const line = abs.length + 32;
      if (size + line > MAX_SCRIPT_BYTES) await flush();
      batch.push(i);
      size += line;
    }
    await flush();
    return results;
  }

  async download(paths: string[]): Promise<DownloadResult[]> {
    const results: DownloadResult[] = [];
    for (const path of paths) {
      const abs = this.resolve(path);
      if (!abs || abs.includes("\0")) {
        results.push({ path, content: null, error: "invalid_path" });
        continue;
      }
      const r = await this.run(`${READ_FN}\nread_one ${shellQuote(this.workdir)} ${shellQuote(abs)}`, { maxOutputBytes: MAX_DOWNLOAD_BYTES, timeoutMs: TIMEOUT_MS });
      if (r.exitCode === 0 && !r.truncated) results.push({ path, content: new Uint8Array(r.stdout) });
      else results.push({ path, content: null, error: CODES[String(r.exitCode)] ?? "permission_denied" });
    }
    return results;
  }

  private async writeBatch(files: UploadFile[], batch: number[], results: UploadResult[]): Promise<void> {
    const lines = batch.map((i) => `write_one ${shellQuote(this.workdir)} ${shellQuote(this.resolve(files[i]!.path)!)} ${files[i]!.content.byteLength}`);
    const stdin = Buffer.concat(batch.map((i) => files[i]!.content));
    // Every sandbox process is pid 2 or so in its own namespace: the temp names need the host's randomness.
    const tag = randomBytes(8).toString("hex");
    const r = await this.run(`${WRITE_FN}\ntag=${tag}\n${lines.join("\n")}`, { stdin, maxOutputBytes: 64 * 1024, timeoutMs: TIMEOUT_MS });
    const words = r.stdout.toString("utf8").split("\n");
    batch.forEach((i, k) => {
      const word = words[k];
      if (word !== "ok") results[i] = { path: files[i]!.path, error: word === "is_directory" || word === "invalid_path" ? word : "permission_denied" };
    });
  }
}

/**
 * read_one WORKDIR PATH: the file's bytes on stdout, or exit 12 (missing), 13 (refused), 14 (directory).
 * Anything reached through a link must be a regular file inside the workspace; a link out of it, a
 * FIFO, a device or a socket gets 13 whether or not its target exists. The read is non-blocking, so a
 * FIFO swapped in after the check cannot hang it.
 */
const READ_FN = String.raw`read_one() {
  r=$(realpath -m -- "$2" 2>/dev/null) || exit 13
  case "$r" in "$1"|"$1"/*) ;; *) exit 13 ;; esac
  if [ "$r" != "$2" ]; then [ -f "$r" ] || exit 13; fi
  [ -e "$r" ] || exit 12
  [ -d "$r" ] && exit 14
  [ -f "$r" ] || exit 13
  exec dd if="$r" iflag=nonblock bs=1M status=none
}`;

/**
 * write_one WORKDIR PATH SIZE: consumes exactly SIZE bytes of stdin (GNU head -c reads no further
 * than it writes) into a temp file next to the target, then renames it over the target, keeping the
 * target's mode. Prints one word per file. If a write fails part-way the stream position is lost, so
 * the script stops and the remaining files count as refused.
 */
const WRITE_FN = String.raw`write_one() {
  r=$(realpath -m -- "$2" 2>/dev/null) || r=/
  case "$r" in "$1"/*) ;; *) head -c "$3" >/dev/null; echo permission_denied; return ;; esac
  if [ -d "$r" ]; then head -c "$3" >/dev/null; echo is_directory; return; fi
  d=$(dirname -- "$r")
  t="$d/.open-swe-write.$tag.$n"
  n=$((n+1))
  if ! { mkdir -p -- "$d" && : > "$t"; } 2>/dev/null; then head -c "$3" >/dev/null; echo permission_denied; return; fi
  if ! head -c "$3" > "$t" 2>/dev/null; then rm -f -- "$t"; echo permission_denied; exit 0; fi
  if [ -f "$r" ]; then chmod --reference="$r" -- "$t" 2>/dev/null; fi
  if mv -fT -- "$t" "$r" 2>/dev/null; then echo ok; else rm -f -- "$t"; echo permission_denied; fi
}
n=0`;
