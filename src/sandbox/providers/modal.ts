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
 * The slice of `modal@0.11.1` this provider uses. Modal speaks gRPC over HTTP/2, which nock cannot
 * mock, so tests inject a fake at this seam; `modalSdkClient` is the real one.
 */
export interface ModalApi {
  create(opts: { image: string; timeoutMs: number; workdir: string; env: Record<string, string>; blockNetwork: boolean; tags: Record<string, string> }): Promise<ModalHandle>;
  fromId(id: string): Promise<ModalHandle>;
  list(): Promise<Array<{ sandboxId: string; tags: Record<string, string> }>>;
}

export interface ModalHandle {
  readonly sandboxId: string;
  /** Runs argv; resolves with the exit code (-1/null on timeout, per the SDK) and raw output. */
  exec(argv: string[], opts: { workdir: string; env: Record<string, string>; timeoutMs: number; stdin?: Uint8Array }): Promise<{ exitCode: number | null; stdout: Uint8Array; stderr: Uint8Array; timedOut: boolean }>;
  poll(): Promise<number | null>;
  terminate(): Promise<void>;
}

const WORKDIR = "/workspace";
const LIFETIME_MS = 60 * 60_000;

export function modalSdkClient(config: SandboxConfig["modal"]): ModalApi {
  let client: Promise<import("modal").ModalClient> | undefined;
  const get = () =>
    (client ??= import("modal").then(
      (m) => new m.ModalClient({ ...(config.tokenId ? { tokenId: config.tokenId } : {}), ...(config.tokenSecret ? { tokenSecret: config.tokenSecret } : {}) }),
    ));
  const wrap = (sb: import("modal").Sandbox): ModalHandle => ({
    sandboxId: sb.sandboxId,
    async exec(argv, o) {
      const p = await sb.exec(argv, { mode: "binary", stdout: "pipe", stderr: "pipe", workdir: o.workdir, env: o.env, timeoutMs: o.timeoutMs });
      if (o.stdin) await p.stdin.writeBytes(o.stdin);
      await p.stdin.close();
      const [stdout, stderr, code] = await Promise.all([p.stdout.readBytes(), p.stderr.readBytes(), p.wait()]);
      return { exitCode: code, stdout, stderr, timedOut: false };
    },
    poll: () => sb.poll(),
    terminate: () => sb.terminate(),
  });
  return {
    async create(o) {
      const c = await get();
      const app = await c.apps.fromName(config.appName, { createIfMissing: true });
      const sb = await c.sandboxes.create(app, c.images.fromRegistry(o.image), { timeoutMs: o.timeoutMs, workdir: o.workdir, env: o.env, blockNetwork: o.blockNetwork, tags: o.tags });
      return wrap(sb);
    },
    async fromId(id) {
      return wrap(await (await get()).sandboxes.fromId(id));
    },
    async list() {
      const c = await get();
      const app = await c.apps.fromName(config.appName, { createIfMissing: true });
      const out: Array<{ sandboxId: string; tags: Record<string, string> }> = [];
      for await (const sb of c.sandboxes.list({ appId: app.appId })) out.push({ sandboxId: sb.sandboxId, tags: await sb.getTags() });
      return out;
    },
  };
}

class ModalSandbox implements Sandbox {
  readonly provider = "modal" as const;
  readonly workdir = WORKDIR;
  private closed = false;

  constructor(
    private readonly handle: ModalHandle,
    private readonly opts: { execTimeoutMs: number; maxOutputBytes: number },
  ) {}

  get id(): string {
    return this.handle.sandboxId;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? this.opts.execTimeoutMs;
    // Modal's exec timeout stops the process, not its children; coreutils `timeout` signals its whole
    // process group (TERM, then KILL a second later) and exits 124.
    const argv = ["timeout", "-k", "1s", `${(timeoutMs / 1000).toFixed(3)}s`, "sh", "-c", command];
    const r = await untilAborted(this.raw(argv, { cwd: options.cwd, env: options.env, timeoutMs: timeoutMs + 5_000 }), options.signal);
    if (r === ABORTED) return ABORTED_RESULT;
    const timedOut = r.timedOut || r.exitCode === null || r.exitCode === 124;
    return execResult({ exitCode: r.exitCode ?? 124, stdout: decode(r.stdout), stderr: decode(r.stderr), timedOut }, this.opts.maxOutputBytes);
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    this.assertOpen();
    const out: UploadResult[] = [];
    for (const f of files) {
      const path = resolveIn(WORKDIR, f.path);
      const r = await this.raw(["sh", "-c", 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', "sh", path], { stdin: f.content });
      out.push(r.exitCode === 0 ? { path: f.path } : { path: f.path, error: "permission_denied" });
    }
    return out;
  }

  async download(paths: string[]): Promise<DownloadResult[]> {
    this.assertOpen();
    const out: DownloadResult[] = [];
    for (const p of paths) {
      const path = resolveIn(WORKDIR, p);
      const r = await this.raw(["sh", "-c", `test -e ${shellQuote(path)} || exit 44; test -d ${shellQuote(path)} && exit 45; cat -- ${shellQuote(path)}`], {});
      if (r.exitCode === 0) out.push({ path: p, content: r.stdout });
      else out.push({ path: p, content: null, error: r.exitCode === 44 ? "file_not_found" : r.exitCode === 45 ? "is_directory" : "permission_denied" });
    }
    return out;
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    return this.handle.poll().then(
      (code) => code === null,
      () => false,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async raw(argv: string[], o: { cwd?: string | undefined; env?: Record<string, string> | undefined; timeoutMs?: number; stdin?: Uint8Array }) {
    try {
      return await this.handle.exec(argv, {
        workdir: resolveIn(WORKDIR, o.cwd ?? "."),
        env: o.env ?? {},
        timeoutMs: o.timeoutMs ?? this.opts.execTimeoutMs,
        ...(o.stdin ? { stdin: o.stdin } : {}),
      });
    } catch (err) {
      throw vendorError("modal", "exec", err);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError("invalid", `sandbox handle ${this.id} is closed`);
  }
}

function decode(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");
}

export class ModalSandboxProvider implements SandboxProvider {
  readonly type = "modal" as const;

  constructor(
    private readonly config: SandboxConfig,
    private readonly api: ModalApi = modalSdkClient(config.modal),
  ) {}

  private get opts() {
    return { execTimeoutMs: this.config.execTimeoutMs, maxOutputBytes: this.config.maxOutputBytes };
  }

  async create(options: CreateSandboxOptions = {}): Promise<Sandbox> {
    if (options.hostWorkspace) throw new SandboxError("invalid", "modal sandboxes cannot bind a host directory");
    const handle = await this.api
      .create({ image: this.config.modal.image, timeoutMs: LIFETIME_MS, workdir: WORKDIR, env: options.env ?? {}, blockNetwork: !(options.network ?? true), tags: options.labels ?? {} })
      .catch((err: unknown) => {
        throw vendorError("modal", "create", err);
      });
    return new ModalSandbox(handle, this.opts);
  }

  async connect(id: string): Promise<Sandbox> {
    const handle = await this.api.fromId(id).catch((err: unknown) => {
      throw vendorError("modal", "connect", err);
    });
    // fromId also finds finished sandboxes: a terminated one is gone for our purposes.
    const exit = await handle.poll().catch((err: unknown) => {
      throw vendorError("modal", "poll", err);
    });
    if (exit !== null) throw new SandboxError("not_found", `modal sandbox ${id} has terminated`);
    return new ModalSandbox(handle, this.opts);
  }

  async destroy(id: string): Promise<void> {
    try {
      await (await this.api.fromId(id)).terminate();
    } catch (err) {
      const e = vendorError("modal", "terminate", err);
      if (e.code !== "not_found") throw e;
    }
  }

  async list(): Promise<SandboxInfo[]> {
    const items = await this.api.list().catch((err: unknown) => {
      throw vendorError("modal", "list", err);
    });
    return items.map((i) => ({ id: i.sandboxId, provider: "modal" as const, labels: i.tags }));
  }
}
