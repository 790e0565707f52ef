import type { SandboxConfig } from "../../config/sandbox-config.js";
import type { SandboxType } from "../../config/sandbox-config.js";
import { SandboxError, type CreateSandboxOptions, type Sandbox, type SandboxInfo, type SandboxProvider } from "../types.js";
import { vendorError } from "./vendor-common.js";
import type { VendorSandbox, VendorSandboxOptions } from "./vendor-sandbox.js";

/**
 * A provider over a vendor SDK: `H` is the SDK's sandbox handle, `I` one row of its listing.
 * Subclasses make the SDK calls; errors are mapped (and a missing sandbox tolerated on destroy) here.
 */
export abstract class VendorSandboxProvider<H, I> implements SandboxProvider {
  abstract readonly type: Exclude<SandboxType, "local">;
  /** The SDK verb behind destroy, for error messages ("kill", "delete", ...). */
  protected abstract readonly destroyVerb: string;
  /** The vendor makes the workdir itself at create; otherwise create runs `mkdir -p`. */
  protected readonly vendorMakesWorkdir: boolean = false;

  constructor(protected readonly config: SandboxConfig) {}

  protected abstract createHandle(options: CreateSandboxOptions): Promise<H>;
  protected abstract connectHandle(id: string): Promise<H>;
  protected abstract destroyHandle(id: string): Promise<void>;
  protected abstract listItems(): Promise<I[]>;
  protected abstract info(item: I): SandboxInfo;
  protected abstract wrap(handle: H): VendorSandbox;

  protected get opts(): VendorSandboxOptions {
    return { execTimeoutMs: this.config.execTimeoutMs, maxOutputBytes: this.config.maxOutputBytes };
  }

  async create(options: CreateSandboxOptions = {}): Promise<Sandbox> {
    if (options.hostWorkspace) throw new SandboxError("invalid", `${this.type} sandboxes cannot bind a host directory`);
    const sb = this.wrap(await this.call("create", () => this.createHandle(options)));
    if (!this.vendorMakesWorkdir) {
      const mk = await sb.exec(`mkdir -p ${sb.workdir}`, { cwd: "/" });
      // Daytona merges stderr into stdout.
      if (mk.exitCode !== 0) throw new SandboxError("exec_failed", `${this.type}: cannot create ${sb.workdir}: ${mk.stderr || mk.stdout}`);
    }
    return sb;
  }

  async connect(id: string): Promise<Sandbox> {
    return this.wrap(await this.call("connect", () => this.connectHandle(id)));
  }

  async destroy(id: string): Promise<void> {
    try {
      await this.destroyHandle(id);
    } catch (err) {
      const e = vendorError(this.type, this.destroyVerb, err);
      if (e.code !== "not_found") throw e;
    }
  }

  async list(): Promise<SandboxInfo[]> {
    return (await this.call("list", () => this.listItems())).map((i) => this.info(i));
  }

  private async call<T>(action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw vendorError(this.type, action, err);
    }
  }
}
