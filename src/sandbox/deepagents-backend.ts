import { posix } from "node:path";
import { BaseSandbox, type EditResult, type ExecuteResponse, type FileDownloadResponse, type FileUploadResponse, type WriteResult } from "deepagents";
import { withPathLock } from "./path-lock.js";
import type { Sandbox } from "./types.js";

export interface SandboxBackendOptions {
  /** Per-command wall-clock limit for the agent's `execute` tool. */
  timeoutMs?: number;
  /** The job's abort signal: cancelling the job kills the running command. */
  signal?: AbortSignal;
}

/**
 * deepagents sees our sandbox through this: it derives ls/read/write/edit/grep/glob from these three
 * primitives, so the agent's built-in file tools and `execute` all run inside the sandbox. An edit is
 * read-modify-write: edits and writes to one path (parallel tool calls in one model turn, a
 * subagent beside its parent) run one after another, so none is lost.
 */
export class SandboxBackend extends BaseSandbox {
  readonly id: string;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: SandboxBackendOptions = {},
  ) {
    super();
    this.id = sandbox.id;
  }

  async execute(command: string): Promise<ExecuteResponse> {
    const r = await this.sandbox.exec(command, {
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(this.options.signal ? { signal: this.options.signal } : {}),
    });
    let output = r.stdout;
    if (r.stderr) output += (output && !output.endsWith("\n") ? "\n" : "") + r.stderr;
    if (r.timedOut) output += `${output && !output.endsWith("\n") ? "\n" : ""}[command timed out and was killed]\n`;
    return { output, exitCode: r.exitCode, truncated: r.truncated };
  }

  override async edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    return withPathLock(this.lockKey(filePath), async () => super.edit(filePath, oldString, newString, replaceAll));
  }

  override async write(filePath: string, content: string): Promise<WriteResult> {
    return withPathLock(this.lockKey(filePath), async () => super.write(filePath, content));
  }

  private lockKey(filePath: string): string {
    return `edit\0${this.sandbox.id}\0${posix.resolve(this.sandbox.workdir, filePath)}`;
  }

  async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    const res = await this.sandbox.upload(files.map(([path, content]) => ({ path, content })));
    return res.map((r) => ({ path: r.path, error: r.error ?? null }));
  }

  async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const res = await this.sandbox.download(paths);
    return res.map((r) => ({ path: r.path, content: r.content, error: r.error ?? null }));
  }
}
