import type { SandboxConfig } from "../../config/sandbox-config.js";
import { shellJoin } from "../../shared/shell-quote.js";
import type { CreateSandboxOptions, FileErrorCode, SandboxInfo } from "../types.js";
import { vendorError, type RawExec } from "./vendor-common.js";
import { TIMED_OUT, VendorSandbox, type VendorRun, type VendorSandboxOptions } from "./vendor-sandbox.js";
import { loadVendorSdk } from "./load-vendor-sdk.js";
import { VendorSandboxProvider } from "./vendor-sandbox-provider.js";

/**
 * The slice of the E2B SDK this provider uses. The SDK sends its HTTP through the `undici` package
 * with its own dispatcher, which nock cannot intercept: tests serve E2B's API and envd on loopback
 * (`E2B_API_URL`, `E2B_SANDBOX_URL`). Errors keep the SDK's shapes: a non-zero exit throws
 * `CommandExitError` (exitCode/stdout/stderr).
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
  /** Sets the sandbox's remaining life to `ms` from now (E2B kills it then). */
  setTimeout(ms: number): Promise<void>;
}

const WORKDIR = "/home/user/workspace";
/** E2B kills a sandbox this long after creation or the last keep-alive (the Hobby plan's maximum). */
export const E2B_LEASE_MS = 60 * 60_000;

/** The real SDK behind the seam; loaded lazily so other providers never pay for it. */
export function e2bSdkClient(config: SandboxConfig["e2b"]): E2bClient {
  const conn = {
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.domain ? { domain: config.domain } : {}),
    ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
    ...(config.sandboxUrl ? { sandboxUrl: config.sandboxUrl } : {}),
  };
  const load = () => loadVendorSdk("e2b", () => import("e2b"));
  const wrap = (sb: import("e2b").Sandbox): E2bHandle => ({
    sandboxId: sb.sandboxId,
    run: (cmd, o) => sb.commands.run(cmd, { cwd: o.cwd, envs: o.envs, timeoutMs: o.timeoutMs }),
    read: (path) => sb.files.read(path, { format: "bytes" }),
    write: async (path, data) => {
      await sb.files.write(path, data.slice().buffer);
    },
    isRunning: () => sb.isRunning(),
    setTimeout: (ms) => sb.setTimeout(ms),
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

class E2bSandbox extends VendorSandbox {
  readonly provider = "e2b" as const;

  constructor(
    private readonly handle: E2bHandle,
    opts: VendorSandboxOptions,
  ) {
    super(handle.sandboxId, WORKDIR, opts);
  }

  protected run(r: VendorRun): Promise<RawExec> {
    return this.handle.run(shellJoin(r.argv), { cwd: r.cwd, envs: r.env, timeoutMs: r.timeoutMs + 5_000 });
  }

  protected override execFailed(err: unknown): RawExec {
    const e = err as { name?: string; exitCode?: number; stdout?: string; stderr?: string };
    // A non-zero exit is a result, not an error.
    if (e.name === "CommandExitError" && typeof e.exitCode === "number") {
      return { exitCode: e.exitCode, stdout: e.stdout ?? "", stderr: e.stderr ?? "", timedOut: e.exitCode === 124 };
    }
    if (e.name === "TimeoutError") return TIMED_OUT;
    throw vendorError("e2b", "exec", err);
  }

  protected writeFile(path: string, content: Uint8Array): Promise<FileErrorCode | undefined> {
    return this.handle.write(path, content).then(
      () => undefined,
      () => "permission_denied",
    );
  }

  protected readFile(path: string): Promise<Uint8Array | FileErrorCode> {
    return this.handle.read(path).catch((err: unknown) => (/NotFound/.test((err as { name?: string }).name ?? "") ? "file_not_found" : "permission_denied"));
  }

  protected alive(): Promise<boolean> {
    return this.handle.isRunning();
  }

  protected extend(): Promise<void> {
    return this.handle.setTimeout(E2B_LEASE_MS);
  }
}

type E2bListItem = Awaited<ReturnType<E2bClient["list"]>>[number];

export class E2bSandboxProvider extends VendorSandboxProvider<E2bHandle, E2bListItem> {
  readonly type = "e2b" as const;
  protected readonly destroyVerb = "kill";

  constructor(
    config: SandboxConfig,
    private readonly client: E2bClient = e2bSdkClient(config.e2b),
  ) {
    super(config);
  }

  protected createHandle(options: CreateSandboxOptions): Promise<E2bHandle> {
    // Sandbox-level envs apply to every command, reconnects included.
    return this.client.create({ template: this.config.e2b.template, timeoutMs: E2B_LEASE_MS, envs: options.env ?? {}, metadata: options.labels ?? {}, allowInternetAccess: options.network ?? true });
  }

  protected connectHandle(id: string): Promise<E2bHandle> {
    return this.client.connect(id);
  }

  protected destroyHandle(id: string): Promise<void> {
    return this.client.kill(id);
  }

  protected listItems(): Promise<E2bListItem[]> {
    return this.client.list();
  }

  protected info(i: E2bListItem): SandboxInfo {
    return { id: i.sandboxId, provider: "e2b", createdAt: i.startedAt.toISOString(), labels: i.metadata };
  }

  protected wrap(handle: E2bHandle): E2bSandbox {
    return new E2bSandbox(handle, this.opts);
  }
}
