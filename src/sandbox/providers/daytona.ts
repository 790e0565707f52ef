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

/** The slice of `@daytonaio/sdk` this provider uses (axios under the hood: tests mock its HTTP with nock). */
export interface DaytonaApi {
  create(opts: { image?: string; snapshot?: string; envVars: Record<string, string>; labels: Record<string, string>; networkBlockAll: boolean }): Promise<DaytonaHandle>;
  get(id: string): Promise<DaytonaHandle>;
  list(): Promise<Array<{ id: string; labels: Record<string, string>; createdAt?: string }>>;
  delete(id: string): Promise<void>;
}

export interface DaytonaHandle {
  readonly id: string;
  /** Combined stdout+stderr; never throws for a non-zero exit. */
  executeCommand(command: string, cwd: string, env: Record<string, string>, timeoutSec: number): Promise<{ exitCode: number; result: string }>;
  uploadFile(content: Buffer, path: string): Promise<void>;
  downloadFile(path: string): Promise<Buffer>;
  state(): Promise<string | undefined>;
}

const WORKDIR = "/home/daytona/workspace";

export function daytonaSdkClient(config: SandboxConfig["daytona"]): DaytonaApi {
  type Sdk = typeof import("@daytonaio/sdk");
  let client: Promise<InstanceType<Sdk["Daytona"]>> | undefined;
  const get = () => (client ??= import("@daytonaio/sdk").then((m) => new m.Daytona({ ...(config.apiKey ? { apiKey: config.apiKey } : {}), apiUrl: config.apiUrl })));
  const wrap = (sb: InstanceType<Sdk["Sandbox"]>): DaytonaHandle => ({
    id: sb.id,
    async executeCommand(command, cwd, env, timeoutSec) {
      const r = await sb.process.executeCommand(command, cwd, env, timeoutSec);
      return { exitCode: r.exitCode, result: r.result };
    },
    uploadFile: (content, path) => sb.fs.uploadFile(content, path),
    downloadFile: (path) => sb.fs.downloadFile(path),
    async state() {
      await sb.refreshData();
      return sb.state;
    },
  });
  return {
    async create(o) {
      const d = await get();
      const base = { envVars: o.envVars, labels: o.labels, networkBlockAll: o.networkBlockAll, autoStopInterval: 0 };
      const sb = o.image ? await d.create({ ...base, image: o.image }) : await d.create({ ...base, ...(o.snapshot ? { snapshot: o.snapshot } : {}) });
      return wrap(sb);
    },
    async get(id) {
      return wrap(await (await get()).get(id));
    },
    async list() {
      const out: Array<{ id: string; labels: Record<string, string>; createdAt?: string }> = [];
      for await (const sb of (await get()).list()) out.push({ id: sb.id, labels: sb.labels, ...(sb.createdAt ? { createdAt: sb.createdAt } : {}) });
      return out;
    },
    async delete(id) {
      const d = await get();
      await d.delete(await d.get(id));
    },
  };
}

class DaytonaSandbox implements Sandbox {
  readonly provider = "daytona" as const;
  readonly workdir = WORKDIR;
  private closed = false;

  constructor(
    private readonly handle: DaytonaHandle,
    private readonly opts: { execTimeoutMs: number; maxOutputBytes: number },
  ) {}

  get id(): string {
    return this.handle.id;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.assertOpen();
    const timeoutMs = options.timeoutMs ?? this.opts.execTimeoutMs;
    // Daytona's own timeout is whole seconds and spares children: coreutils `timeout` kills the group.
    const wrapped = `timeout -k 1s ${(timeoutMs / 1000).toFixed(3)}s sh -c ${shellQuote(command)}`;
    try {
      const r = await untilAborted(this.handle.executeCommand(wrapped, resolveIn(WORKDIR, options.cwd ?? "."), options.env ?? {}, Math.ceil(timeoutMs / 1000) + 5), options.signal);
      if (r === ABORTED) return ABORTED_RESULT;
      return execResult({ exitCode: r.exitCode, stdout: r.result, stderr: "", timedOut: r.exitCode === 124 }, this.opts.maxOutputBytes);
    } catch (err) {
      const e = vendorError("daytona", "exec", err);
      if (e.code === "timeout") return execResult({ exitCode: 124, stdout: "", stderr: "", timedOut: true }, this.opts.maxOutputBytes);
      throw e;
    }
  }

  async upload(files: UploadFile[]): Promise<UploadResult[]> {
    this.assertOpen();
    const out: UploadResult[] = [];
    for (const f of files) {
      try {
        await this.handle.uploadFile(Buffer.from(f.content), resolveIn(WORKDIR, f.path));
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
        out.push({ path, content: new Uint8Array(await this.handle.downloadFile(resolveIn(WORKDIR, path))) });
      } catch (err) {
        const e = vendorError("daytona", "download", err);
        out.push({ path, content: null, error: e.code === "not_found" || /not found/i.test(e.message) ? "file_not_found" : "permission_denied" });
      }
    }
    return out;
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    return this.handle.state().then(
      (s) => s === "started",
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

export class DaytonaSandboxProvider implements SandboxProvider {
  readonly type = "daytona" as const;

  constructor(
    private readonly config: SandboxConfig,
    private readonly api: DaytonaApi = daytonaSdkClient(config.daytona),
  ) {}

  private get opts() {
    return { execTimeoutMs: this.config.execTimeoutMs, maxOutputBytes: this.config.maxOutputBytes };
  }

  async create(options: CreateSandboxOptions = {}): Promise<Sandbox> {
    if (options.hostWorkspace) throw new SandboxError("invalid", "daytona sandboxes cannot bind a host directory");
    const { image, snapshot } = this.config.daytona;
    const handle = await this.api
      .create({ ...(image ? { image } : {}), ...(snapshot ? { snapshot } : {}), envVars: options.env ?? {}, labels: options.labels ?? {}, networkBlockAll: !(options.network ?? true) })
      .catch((err: unknown) => {
        throw vendorError("daytona", "create", err);
      });
    const sb = new DaytonaSandbox(handle, this.opts);
    const mk = await sb.exec(`mkdir -p ${WORKDIR}`, { cwd: "/" });
    if (mk.exitCode !== 0) throw new SandboxError("exec_failed", `daytona: cannot create ${WORKDIR}: ${mk.stdout}`);
    return sb;
  }

  async connect(id: string): Promise<Sandbox> {
    const handle = await this.api.get(id).catch((err: unknown) => {
      throw vendorError("daytona", "connect", err);
    });
    return new DaytonaSandbox(handle, this.opts);
  }

  async destroy(id: string): Promise<void> {
    await this.api.delete(id).catch((err: unknown) => {
      const e = vendorError("daytona", "delete", err);
      if (e.code !== "not_found") throw e;
    });
  }

  async list(): Promise<SandboxInfo[]> {
    const items = await this.api.list().catch((err: unknown) => {
      throw vendorError("daytona", "list", err);
    });
    return items.map((i) => ({ id: i.id, provider: "daytona" as const, labels: i.labels, ...(i.createdAt ? { createdAt: i.createdAt } : {}) }));
  }
}
