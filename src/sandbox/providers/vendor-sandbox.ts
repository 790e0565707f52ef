import { randomBytes } from "node:crypto";
import type { SandboxType } from "../../config/sandbox-config.js";
import { posix } from "node:path";
import { withPathLock } from "../path-lock.js";
import { shellQuote } from "../../shared/shell-quote.js";
import { SandboxError, type DownloadResult, type ExecOptions, type ExecResult, type FileErrorCode, type Sandbox, type UploadFile, type UploadResult } from "../types.js";
import { ABORTED, ABORTED_RESULT, execResult, resolveIn, untilAborted, vendorError, type RawExec } from "./vendor-common.js";

export interface VendorSandboxOptions {
  execTimeoutMs: number;
  maxOutputBytes: number;
}

/** One command as the vendor should run it: already wrapped in `timeout`, cwd resolved. */
export interface VendorRun {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The caller's limit; vendors set their own as a backstop a few seconds past it. */
  timeoutMs: number;
}

export const TIMED_OUT: RawExec = { exitCode: 124, stdout: "", stderr: "", timedOut: true };

/** A handle on a vendor sandbox: the shared exec/upload/download plumbing over a few SDK calls. */
export abstract class VendorSandbox implements Sandbox {
  abstract readonly provider: SandboxType;
  private closed = false;

  constructor(
    readonly id: string,
    readonly workdir: string,
    protected readonly opts: VendorSandboxOptions,
  ) {}

  /** Runs the wrapped command; resolves with its (uncapped) output. */
  protected abstract run(r: VendorRun): Promise<RawExec>;
  /** Writes one file (absolute path); resolves with an error code rather than throwing for a refusal. */
  protected abstract writeFile(path: string, content: Uint8Array): Promise<FileErrorCode | undefined>;
  /** Reads one file (absolute path): its bytes, or why not. */
  protected abstract readFile(path: string): Promise<Uint8Array | FileErrorCode>;
  /** Whether the vendor reports the sandbox running (may throw: that counts as no). */
  protected abstract alive(): Promise<boolean>;
  /** Pushes back the vendor's stop/kill deadline (may throw). */
  protected abstract extend(): Promise<void>;

  /** A failed `run`: some SDKs throw for what is a result (a non-zero exit, their own timeout). */
  protected execFailed(err: unknown): RawExec {
    throw vendorError(this.provider, "exec", err);
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? this.opts.execTimeoutMs;
    // The vendors' own timeouts stop the command, not what it spawned: coreutils `timeout` kills the
    // whole process group (TERM, then KILL a second later) and exits 124.
    const argv = ["timeout", "-k", "1s", `${(timeoutMs / 1000).toFixed(3)}s`, "sh", "-c", command];
    let raw: RawExec | typeof ABORTED;
    try {
      raw = await untilAborted(this.run({ argv, cwd: resolveIn(this.workdir, options.cwd ?? "."), env: options.env ?? {}, timeoutMs }), options.signal);
    } catch (err) {
      raw = this.execFailed(err);
    }
    return raw === ABORTED ? ABORTED_RESULT : execResult(raw, this.opts.maxOutputBytes);
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    this.assertOpen();
    const out: UploadResult[] = [];
    for (const f of files) {
      const path = resolveIn(this.workdir, f.path);
      const error = await withPathLock(`upload\0${this.provider}\0${this.id}\0${path}`, () => this.writeAtomically(path, f.content));
      out.push(error ? { path: f.path, error } : { path: f.path });
    }
    return out;
  }

  /**
   * Uploads to a temporary name beside `path`, then renames it over `path` inside the sandbox
   * (keeping the old file's mode): a reader or a second writer never sees half a file.
   */
  private async writeAtomically(path: string, content: Uint8Array): Promise<FileErrorCode | undefined> {
    const tmp = `${posix.dirname(path)}/.open-swe-write.${randomBytes(6).toString("hex")}`;
    const error = await this.writeFile(tmp, content);
    if (error) return error;
    const [p, t] = [shellQuote(path), shellQuote(tmp)];
    const r = await this.exec(
      `if [ -d ${p} ]; then rm -f -- ${t}; exit 21; fi; if [ -f ${p} ]; then chmod --reference=${p} -- ${t} 2>/dev/null; fi; mv -f -- ${t} ${p} || { rm -f -- ${t}; exit 22; }`,
      { timeoutMs: 60_000 },
    );
    if (r.exitCode === 0) return undefined;
    return r.exitCode === 21 ? "is_directory" : "permission_denied";
  }

  async download(paths: string[]): Promise<DownloadResult[]> {
    this.assertOpen();
    const out: DownloadResult[] = [];
    for (const path of paths) {
      const r = await this.readFile(resolveIn(this.workdir, path));
      out.push(typeof r === "string" ? { path, content: null, error: r } : { path, content: r });
    }
    return out;
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    return this.alive().catch(() => false);
  }

  async keepAlive(): Promise<boolean> {
    if (this.closed) return false;
    return this.extend().then(
      () => true,
      () => false,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError("invalid", `sandbox handle ${this.id} is closed`);
  }
}
