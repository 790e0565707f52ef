import type { SandboxConfig } from "../config.js";
import { shellQuote } from "../shell-quote.js";
import {
  SandboxError,
  type CreateSandboxOptions,
  type DownloadResult,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxInfo,
  type SandboxProvider,
  type UploadFile,
  type UploadResult,
} from "../types.js";
import { ABORTED, ABORTED_RESULT, execResult, resolveIn, untilAborted, vendorError } from "./vendor-common.js";

/**
 * The slice of the E2B SDK this provider uses. The SDK sends its HTTP through the `undici` package
 * with its own dispatcher, which nock cannot intercept, so tests inject a fake here instead.
 * Errors keep the SDK's shapes: a non-zero exit throws `CommandExitError` (exitCode/stdout/stderr).
 */
export interface E2bClient {
  create(opts: { template: string; timeoutMs: number; envs: Record<string, string>; metadata: Record<string, string>; allowInternetAccess: boolean }): Promise<E2bHandle>;
  connect(id: string): Promise<E2bHandle>;
  kill(id: string): Promise<void>;
  list(): Promise<Array<{ sandboxId: string; startedAt: Date; metadata: Record<string, string> }>>;
}

export interface E2bHandle {
  readonly sandboxId: string;
  run(cmd: string, opts: { cwd: string; envs: Record<string, string>; timeoutMs: number }): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  read(path: string): Promise<Uint8Array>;
  write(path: string, data: Uint8Array): Promise<void>;
  isRunning(): Promise<boolean>;
}

const WORKDIR = "/home/user/workspace";
const LIFETIME_MS = 60 * 60_000;

/** The real SDK behind the seam; loaded lazily so other providers never pay for it. */
export function e2bSdkClient(config: SandboxConfig["e2b"]): E2bClient {
  const conn = { ...(config.apiKey ? { apiKey: config.apiKey } : {}), ...(config.domain ? { domain: config.domain } : {}) };
  const load = () => import("e2b");
  const wrap = (sb: import("e2b").Sandbox): E2bHandle => ({
    sandboxId: sb.sandboxId,
    run: (cmd, o) => sb.commands.run(cmd, { cwd: o.cwd, envs: o.envs, timeoutMs: o.timeoutMs }),
    read: (path) => sb.files.read(path, { format: "bytes" }),
    write: async (path, data) => {
      await sb.files.write(path, data.slice().buffer);
    },
    isRunning: () => sb.isRunning(),
  });
  return {
    async create(o) {
      const { Sandbox } = await load();
      return wrap(await Sandbox.create(o.template, { ...conn, timeoutMs: o.timeoutMs, envs: o.envs, metadata: o.metadata, allowInternetAccess: o.allowInternetAccess }));
    },
    async connect(id) {
      const { Sandbox } = await load();
      return wrap(await Sandbox.connect(id, conn));
    },
    async kill(id) {
      const { Sandbox } = await load();
      await Sandbox.kill(id, conn);
    },
    async list() {
      const { Sandbox } = await load();
      const pages = Sandbox.list(conn);
      const out: Array<{ sandboxId: string; startedAt: Date; metadata: Record<string, string> }> = [];
      while (pages.hasNext) out.push(...(await pages.nextItems()));
      return out;
    },
  };
}

class E2bSandbox implements Sandbox {
  readonly provider = "e2b" as const;
  readonly workdir = WORKDIR;
  private closed = false;

  constructor(
    private readonly handle: E2bHandle,
    private readonly opts: { execTimeoutMs: number; maxOutputBytes: number },
  ) {}

  get id(): string {
    return this.handle.sandboxId;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? this.opts.execTimeoutMs;
    // E2B's command timeout stops the command, not what it spawned: coreutils `timeout` kills the
    // whole process group and exits 124; the SDK's own limit is only a backstop.
    const wrapped = `timeout -k 1s ${(timeoutMs / 1000).toFixed(3)}s sh -c ${shellQuote(command)}`;
    const run = this.handle.run(wrapped, { cwd: resolveIn(WORKDIR, options.cwd ?? "."), envs: options.env ?? {}, timeoutMs: timeoutMs + 5_000 });
    try {
      const done = await untilAborted(run, options.signal);
      if (done === ABORTED) return ABORTED_RESULT;
      return execResult(done, this.opts.maxOutputBytes);
    } catch (err) {
      const e = err as { name?: string; exitCode?: number; stdout?: string; stderr?: string };
      // A non-zero exit is a result, not an error.
      if (e.name === "CommandExitError" && typeof e.exitCode === "number") {
        return execResult({ exitCode: e.exitCode, stdout: e.stdout ?? "", stderr: e.stderr ?? "", timedOut: e.exitCode === 124 }, this.opts.maxOutputBytes);
      }
      if (e.name === "TimeoutError") return execResult({ exitCode: 124, stdout: "", stderr: "", timedOut: true }, this.opts.maxOutputBytes);
      throw vendorError("e2b", "exec", err);
    }
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    this.assertOpen();
    const out: UploadResult[] = [];
    for (const f of files) {
      try {
        await this.handle.write(resolveIn(WORKDIR, f.path), f.content);
        out.push({ path: f.path });
      } catch {
        out.push({ path: f.path, error: "permission_denied" });
      }
    }
    return out;
  }

  async download(paths: string[]): Promise<DownloadResult[]> {
    this.assertOpen();
    const out: DownloadResult[] = [];
    for (const path of paths) {
      try {
        out.push({ path, content: await this.handle.read(resolveIn(WORKDIR, path)) });
      } catch (err) {
        const name = (err as { name?: string }).name ?? "";
        out.push({ path, content: null, error: /NotFound/.test(name) ? "file_not_found" : "permission_denied" });
      }
    }
    return out;
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    return this.handle.isRunning().catch(() => false);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError("invalid", `sandbox handle ${this.id} is closed`);
  }
}

export class E2bSandboxProvider implements SandboxProvider {
  readonly type = "e2b" as const;

  constructor(
    private readonly config: SandboxConfig,
    private readonly client: E2bClient = e2bSdkClient(config.e2b),
  ) {}

  private get opts() {
    return { execTimeoutMs: this.config.execTimeoutMs, maxOutputBytes: this.config.maxOutputBytes };
  }

  async create(options: CreateSandboxOptions = {}): Promise<Sandbox> {
    if (options.hostWorkspace) throw new SandboxError("invalid", "e2b sandboxes cannot bind a host directory");
    // Sandbox-level envs apply to every command, reconnects included.
    const env = options.env ?? {};
    const handle = await this.client
      .create({ template: this.config.e2b.template, timeoutMs: LIFETIME_MS, envs: env, metadata: options.labels ?? {}, allowInternetAccess: options.network ?? true })
      .catch((err: unknown) => {
        throw vendorError("e2b", "create", err);
      });
    const sb = new E2bSandbox(handle, this.opts);
    const mk = await sb.exec(`mkdir -p ${WORKDIR}`, { cwd: "/" });
    if (mk.exitCode !== 0) throw new SandboxError("exec_failed", `e2b: cannot create ${WORKDIR}: ${mk.stderr}`);
    return sb;
  }

  async connect(id: string): Promise<Sandbox> {
    const handle = await this.client.connect(id).catch((err: unknown) => {
      throw vendorError("e2b", "connect", err);
    });
    return new E2bSandbox(handle, this.opts);
  }

  async destroy(id: string): Promise<void> {
    await this.client.kill(id).catch((err: unknown) => {
      const e = vendorError("e2b", "kill", err);
      if (e.code !== "not_found") throw e;
    });
  }

  async list(): Promise<SandboxInfo[]> {
    const items = await this.client.list().catch((err: unknown) => {
      throw vendorError("e2b", "list", err);
    });
    return items.map((i) => ({ id: i.sandboxId, provider: "e2b" as const, createdAt: i.startedAt.toISOString(), labels: i.metadata }));
  }
}
