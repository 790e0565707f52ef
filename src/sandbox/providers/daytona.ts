import type { SandboxConfig } from "../../config/sandbox-config.js";
import { shellJoin } from "../../shared/shell-quote.js";
import type { CreateSandboxOptions, FileErrorCode, SandboxInfo } from "../types.js";
import { vendorError, type RawExec } from "./vendor-common.js";
import { TIMED_OUT, VendorSandbox, type VendorRun, type VendorSandboxOptions } from "./vendor-sandbox.js";
import { loadVendorSdk } from "./load-vendor-sdk.js";
import { VendorSandboxProvider } from "./vendor-sandbox-provider.js";

/** The slice of `@daytonaio/sdk` this provider uses (axios under the hood: tests mock its HTTP with nock). */
export interface DaytonaApi {
  create(opts: { image?: string; snapshot?: string; envVars: Record<string, string>; labels: Record<string, string>; networkBlockAll: boolean; autoStopInterval: number }): Promise<DaytonaHandle>;
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
  /** Starts a stopped sandbox (its filesystem was kept). */
  start(): Promise<void>;
  /** Resets the auto-stop clock. */
  refreshActivity(): Promise<void>;
}

const WORKDIR = "/home/daytona/workspace";
/**
 * Minutes without activity after which Daytona stops a sandbox. Stopping keeps the filesystem and the
 * next use starts it again, so this is short; a run's keep-alive (every few minutes) holds it up.
 */
export const DAYTONA_AUTO_STOP_MINUTES = 15;

export function daytonaSdkClient(config: SandboxConfig["daytona"]): DaytonaApi {
  type Sdk = typeof import("@daytonaio/sdk");
  let client: Promise<InstanceType<Sdk["Daytona"]>> | undefined;
  const get = () =>
    (client ??= loadVendorSdk("@daytonaio/sdk", () => import("@daytonaio/sdk")).then((m) => new m.Daytona({ ...(config.apiKey ? { apiKey: config.apiKey } : {}), apiUrl: config.apiUrl })));
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
    start: () => sb.start(),
    refreshActivity: () => sb.refreshActivity(),
  });
  return {
    async create(o) {
      const d = await get();
      const base = { envVars: o.envVars, labels: o.labels, networkBlockAll: o.networkBlockAll, autoStopInterval: o.autoStopInterval };
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

class DaytonaSandbox extends VendorSandbox {
  readonly provider = "daytona" as const;

  constructor(
    private readonly handle: DaytonaHandle,
    opts: VendorSandboxOptions,
  ) {
    super(handle.id, WORKDIR, opts);
  }

  protected async run(r: VendorRun): Promise<RawExec> {
    // Daytona's own timeout is whole seconds.
    const x = await this.handle.executeCommand(shellJoin(r.argv), r.cwd, r.env, Math.ceil(r.timeoutMs / 1000) + 5);
    return { exitCode: x.exitCode, stdout: x.result, stderr: "", timedOut: x.exitCode === 124 };
  }

  protected override execFailed(err: unknown): RawExec {
    const e = vendorError("daytona", "exec", err);
    if (e.code === "timeout") return TIMED_OUT;
    throw e;
  }

  protected writeFile(path: string, content: Uint8Array): Promise<FileErrorCode | undefined> {
    return this.handle.uploadFile(Buffer.from(content), path).then(
      () => undefined,
      () => "permission_denied",
    );
  }

  protected async readFile(path: string): Promise<Uint8Array | FileErrorCode> {
    try {
      return new Uint8Array(await this.handle.downloadFile(path));
    } catch (err) {
      const e = vendorError("daytona", "download", err);
      return e.code === "not_found" || /not found/i.test(e.message) ? "file_not_found" : "permission_denied";
    }
  }

  /** A sandbox Daytona auto-stopped still has its workspace: start it rather than call it dead. */
  protected async alive(): Promise<boolean> {
    const state = await this.handle.state();
    if (state === "stopped") await this.handle.start();
    return state === "started" || state === "stopped";
  }

  protected extend(): Promise<void> {
    return this.handle.refreshActivity();
  }
}

type DaytonaListItem = Awaited<ReturnType<DaytonaApi["list"]>>[number];

export class DaytonaSandboxProvider extends VendorSandboxProvider<DaytonaHandle, DaytonaListItem> {
  readonly type = "daytona" as const;
  protected readonly destroyVerb = "delete";

  constructor(
    config: SandboxConfig,
    private readonly api: DaytonaApi = daytonaSdkClient(config.daytona),
  ) {
    super(config);
  }

  protected createHandle(options: CreateSandboxOptions): Promise<DaytonaHandle> {
    const { image, snapshot } = this.config.daytona;
    return this.api.create({
      ...(image ? { image } : {}),
      ...(snapshot ? { snapshot } : {}),
      envVars: options.env ?? {},
      labels: options.labels ?? {},
      networkBlockAll: !(options.network ?? true),
      autoStopInterval: DAYTONA_AUTO_STOP_MINUTES,
    });
  }

  protected async connectHandle(id: string): Promise<DaytonaHandle> {
    const handle = await this.api.get(id);
    if ((await handle.state()) === "stopped") await handle.start();
    return handle;
  }

  protected destroyHandle(id: string): Promise<void> {
    return this.api.delete(id);
  }

  protected listItems(): Promise<DaytonaListItem[]> {
    return this.api.list();
  }

  protected info(i: DaytonaListItem): SandboxInfo {
    return { id: i.id, provider: "daytona", labels: i.labels, ...(i.createdAt ? { createdAt: i.createdAt } : {}) };
  }

  protected wrap(handle: DaytonaHandle): DaytonaSandbox {
    return new DaytonaSandbox(handle, this.opts);
  }
}
