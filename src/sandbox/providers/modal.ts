import type { SandboxConfig } from "../../config/sandbox-config.js";
import { shellQuote } from "../../shared/shell-quote.js";
import { KEEP_ALIVE_EVERY_MS } from "../keep-alive.js";
import { SandboxError, type CreateSandboxOptions, type FileErrorCode, type SandboxInfo } from "../types.js";
import { vendorError, type RawExec } from "./vendor-common.js";
import { VendorSandbox, type VendorRun, type VendorSandboxOptions } from "./vendor-sandbox.js";
import { loadVendorSdk } from "./load-vendor-sdk.js";
import { VendorSandboxProvider } from "./vendor-sandbox-provider.js";

/**
 * The slice of `modal@0.11.1` this provider uses; `modalSdkClient` is the real one. Modal speaks gRPC
 * over HTTP/2: the conformance tests serve its services on loopback (`MODAL_SERVER_URL`, which the SDK
 * reads itself); a few narrower tests inject a fake here.
 */
export interface ModalApi {
  create(opts: { image: string; timeoutMs: number; idleTimeoutMs?: number; workdir: string; env: Record<string, string>; blockNetwork: boolean; tags: Record<string, string> }): Promise<ModalHandle>;
  fromId(id: string): Promise<ModalHandle>;
  list(): Promise<Array<{ sandboxId: string; tags: Record<string, string> }>>;
}

export interface ModalHandle {
  readonly sandboxId: string;
  /** Runs argv; resolves with the exit code (-1/null on timeout, per the SDK) and raw output. */
  exec(
    argv: string[],
    opts: { workdir: string; env: Record<string, string>; timeoutMs: number; stdin?: Uint8Array },
  ): Promise<{ exitCode: number | null; stdout: Uint8Array; stderr: Uint8Array; timedOut: boolean }>;
  poll(): Promise<number | null>;
  terminate(): Promise<void>;
}

const WORKDIR = "/workspace";
/** Modal's maximum sandbox lifetime: it cannot be extended, so a sandbox gets all of it. */
export const MODAL_LIFETIME_MS = 24 * 60 * 60_000;

export function modalSdkClient(config: SandboxConfig["modal"]): ModalApi {
  let client: Promise<import("modal").ModalClient> | undefined;
  const get = () =>
    (client ??= loadVendorSdk("modal", () => import("modal")).then(
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
      const sb = await c.sandboxes.create(app, c.images.fromRegistry(o.image), {
        timeoutMs: o.timeoutMs,
        ...(o.idleTimeoutMs ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
        workdir: o.workdir,
        env: o.env,
        blockNetwork: o.blockNetwork,
        tags: o.tags,
      });
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

class ModalSandbox extends VendorSandbox {
  readonly provider = "modal" as const;

  constructor(
    private readonly handle: ModalHandle,
    opts: VendorSandboxOptions,
  ) {
    super(handle.sandboxId, WORKDIR, opts);
  }

  protected async run(r: VendorRun): Promise<RawExec> {
    // The SDK refuses a timeout that is not whole seconds.
    const x = await this.raw(r.argv, { workdir: r.cwd, env: r.env, timeoutMs: Math.ceil(r.timeoutMs / 1000) * 1000 + 5_000 });
    const timedOut = x.timedOut || x.exitCode === null || x.exitCode === 124;
    return { exitCode: x.exitCode ?? 124, stdout: decode(x.stdout), stderr: decode(x.stderr), timedOut };
  }

  protected async writeFile(path: string, content: Uint8Array): Promise<FileErrorCode | undefined> {
    const r = await this.raw(["sh", "-c", 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', "sh", path], { stdin: content });
    return r.exitCode === 0 ? undefined : "permission_denied";
  }

  protected async readFile(path: string): Promise<Uint8Array | FileErrorCode> {
    const r = await this.raw(["sh", "-c", `test -e ${shellQuote(path)} || exit 44; test -d ${shellQuote(path)} && exit 45; cat -- ${shellQuote(path)}`], {});
    if (r.exitCode === 0) return r.stdout;
    return r.exitCode === 44 ? "file_not_found" : r.exitCode === 45 ? "is_directory" : "permission_denied";
  }

  protected async alive(): Promise<boolean> {
    return (await this.handle.poll()) === null;
  }

  /** Modal's idle clock restarts with each command: a no-op is the keep-alive. */
  protected async extend(): Promise<void> {
    const r = await this.raw(["true"], { timeoutMs: 30_000 });
    if (r.exitCode !== 0) throw new SandboxError("exec_failed", `modal keep-alive exited ${r.exitCode}`);
  }

  private async raw(argv: string[], o: { workdir?: string; env?: Record<string, string>; timeoutMs?: number; stdin?: Uint8Array }) {
    try {
      return await this.handle.exec(argv, {
        workdir: o.workdir ?? WORKDIR,
        env: o.env ?? {},
        timeoutMs: o.timeoutMs ?? this.opts.execTimeoutMs,
        ...(o.stdin ? { stdin: o.stdin } : {}),
      });
    } catch (err) {
      throw vendorError("modal", "exec", err);
    }
  }
}

function decode(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8");
}

type ModalListItem = Awaited<ReturnType<ModalApi["list"]>>[number];

export class ModalSandboxProvider extends VendorSandboxProvider<ModalHandle, ModalListItem> {
  readonly type = "modal" as const;
  protected readonly destroyVerb = "terminate";
  protected override readonly vendorMakesWorkdir = true;

  constructor(
    config: SandboxConfig,
    private readonly api: ModalApi = modalSdkClient(config.modal),
  ) {
    super(config);
  }

  protected createHandle(options: CreateSandboxOptions): Promise<ModalHandle> {
    // The idle TTL is Modal's idle timeout too (an idle sandbox stops even when no sweep runs), never
    // so short that a run's keep-alives could miss it.
    const ttl = this.config.idleTtlMs;
    const idle = ttl > 0 ? Math.min(Math.max(ttl, 3 * KEEP_ALIVE_EVERY_MS), MODAL_LIFETIME_MS) : 0;
    return this.api.create({
      image: this.config.modal.image,
      timeoutMs: MODAL_LIFETIME_MS,
      ...(idle ? { idleTimeoutMs: idle } : {}),
      workdir: WORKDIR,
      env: options.env ?? {},
      blockNetwork: !(options.network ?? true),
      tags: options.labels ?? {},
    });
  }

  protected async connectHandle(id: string): Promise<ModalHandle> {
    const handle = await this.api.fromId(id);
    // fromId also finds finished sandboxes: a terminated one is gone for our purposes.
    const exit = await handle.poll().catch((err: unknown) => {
      throw vendorError("modal", "poll", err);
    });
    if (exit !== null) throw new SandboxError("not_found", `modal sandbox ${id} has terminated`);
    return handle;
  }

  protected async destroyHandle(id: string): Promise<void> {
    await (await this.api.fromId(id)).terminate();
  }

  protected listItems(): Promise<ModalListItem[]> {
    return this.api.list();
  }

  protected info(i: ModalListItem): SandboxInfo {
    return { id: i.sandboxId, provider: "modal", labels: i.tags };
  }

  protected wrap(handle: ModalHandle): ModalSandbox {
    return new ModalSandbox(handle, this.opts);
  }
}
