import type { SandboxType } from "../config/sandbox-config.js";
import { OpenSweError } from "../errors.js";

export interface ExecOptions {
  /** Working directory inside the sandbox; defaults to the sandbox's `workdir`. */
  cwd?: string;
  /** Extra environment for this command only (on top of the sandbox's allow-listed env). */
  env?: Record<string, string>;
  /** Wall-clock limit; on expiry the whole process tree is killed and `timedOut` is set. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Output went past the provider's cap and was cut. */
  truncated: boolean;
  /** The command hit its wall-clock limit (or was aborted) and was killed; exitCode is then 124. */
  timedOut: boolean;
  /** A hard limit of the sandbox the command ran into (local provider); its message is also on stderr. */
  limit?: { kind: "memory" | "processes" | "disk"; message: string };
}

export interface UploadFile {
  path: string;
  content: Uint8Array;
}

export type FileErrorCode = "file_not_found" | "permission_denied" | "is_directory" | "invalid_path";

export interface UploadResult {
  path: string;
  error?: FileErrorCode;
}

export interface DownloadResult {
  path: string;
  content: Uint8Array | null;
  error?: FileErrorCode;
}

/** A long-lived process inside the sandbox with its stdin/stdout as streams (a stdio MCP server). */
export interface SandboxProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  /** Settles when the process has exited (killed included); never rejects. */
  readonly exited: Promise<{ exitCode: number; stderr: string }>;
  kill(): void;
}

/**
 * One isolated place to run commands. Paths are sandbox paths; relative ones resolve against `workdir`.
 * `close()` releases this handle only: the sandbox lives on until `SandboxProvider.destroy(id)`.
 */
export interface Sandbox {
  readonly id: string;
  readonly provider: SandboxType;
  /** The writable working directory (the repository checkout lives here). */
  readonly workdir: string;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Starts `command` inside the sandbox, same isolation as `exec`, with streaming stdio; providers without it cannot host stdio servers. */
  openProcess?(command: string, options?: ExecOptions): Promise<SandboxProcess>;
  upload(files: UploadFile[]): Promise<UploadResult[]>;
  download(paths: string[]): Promise<DownloadResult[]>;
  /** true when the sandbox answers; never throws. */
  ping(): Promise<boolean>;
  /**
   * Local sandboxes: false when the workspace's filesystem went read-only (EROFS: an ext4 disk image
   * whose journal aborted remounts itself read-only); such a sandbox is replaced. Never throws.
   */
  writable?(): Promise<boolean>;
  /**
   * Vendor sandboxes: pushes back the vendor's own stop/kill deadline while a run holds the sandbox
   * (E2B's timeout, Daytona's auto-stop, Modal's idle timeout). false when the vendor refused; never throws.
   */
  keepAlive?(): Promise<boolean>;
  close(): Promise<void>;
}

export interface CreateSandboxOptions {
  /** Outbound network. Reviewer sandboxes pass false; agent sandboxes default to true. */
  network?: boolean;
  /** Env applied to every exec (never credentials). */
  env?: Record<string, string>;
  /** Free-form labels (thread id, repo) kept with the sandbox and shown by `list()`. */
  labels?: Record<string, string>;
  /** Local provider only: bind this existing host directory as the workspace instead of a fresh one. */
  hostWorkspace?: string;
}

export interface SandboxInfo {
  id: string;
  provider: SandboxType;
  createdAt?: string;
  labels: Record<string, string>;
}

export interface SandboxProvider {
  readonly type: SandboxType;
  create(options?: CreateSandboxOptions): Promise<Sandbox>;
  /** Throws SandboxError("not_found") when the sandbox no longer exists. */
  connect(id: string): Promise<Sandbox>;
  /** Idempotent: destroying a missing sandbox is not an error. */
  destroy(id: string): Promise<void>;
  list(): Promise<SandboxInfo[]>;
}

export type SandboxErrorCode = "not_found" | "unreachable" | "timeout" | "quota" | "auth" | "invalid" | "exec_failed" | "unavailable";

export class SandboxError extends OpenSweError<SandboxErrorCode> {
  /** Worth retrying later (the sandbox or its service may come back). */
  get transient(): boolean {
    return this.code === "unreachable" || this.code === "timeout" || this.code === "unavailable";
  }
}

export function isSandboxError(err: unknown, code?: SandboxErrorCode): err is SandboxError {
  return err instanceof SandboxError && (code === undefined || err.code === code);
}
