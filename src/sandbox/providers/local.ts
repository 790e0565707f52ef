import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, lstat, mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errorMessage } from "../../errors.js";
import { releaseSandboxLimits } from "../limits/sandbox-limits.js";
import { mountSandboxDisk, removeSandboxDisk, trySandboxDisk } from "../limits/workspace-disk.js";
import { claimBaseCheckout, claimTree, passThroughDir, privateDir, sandboxHostIdentity, sandboxOwnedDir, type HostIdentity } from "../host-identity.js";
import { isMountPoint, mountNoSuid, mountOverlay, unmount } from "../overlay.js";
import { SandboxError, type CreateSandboxOptions, type SandboxInfo, type SandboxProvider } from "../types.js";
import { SANDBOX_GROUP, SANDBOX_PASSWD } from "./bwrap-args.js";
import { stopForwarder } from "./egress-netns.js";
import { LOCAL_ID_RE, LocalMeta, RUN_ROOT, UNCAPPED_DISK_LIMITS, liveDir, workspaceView, writeMeta, type LocalProviderOptions } from "./local-dir.js";
import { killSandboxProcesses, LocalSandbox } from "./local-sandbox.js";

/** The provider's sandbox handle; its callers import it from here with the provider. */
export { LocalSandbox };

/** bubblewrap sandboxes on this machine; one directory per sandbox under `root`, kept across restarts. */
export class LocalSandboxProvider implements SandboxProvider {
  readonly type = "local" as const;
  readonly identity: HostIdentity;

  constructor(private readonly opts: LocalProviderOptions) {
    this.identity = sandboxHostIdentity(opts.hostUser);
  }

  async create(options: CreateSandboxOptions = {}): Promise<LocalSandbox> {
    const id = `local-${randomBytes(8).toString("hex")}`;
    const dir = join(this.opts.root, id);
    if (options.hostWorkspace && !existsSync(options.hostWorkspace)) {
      throw new SandboxError("invalid", `workspace directory ${options.hostWorkspace} does not exist`);
    }
    const owner = options.hostWorkspace ? await this.externalOwner(options.hostWorkspace) : this.identity;
    await privateDir(this.opts.root, { ...this.identity, drop: false });
    await privateDir(dir, owner);
    const diskMb = (this.opts.limits ?? UNCAPPED_DISK_LIMITS).diskMb;
    const disk = !options.hostWorkspace && diskMb > 0 ? await trySandboxDisk(dir, diskMb) : undefined;
    const meta: LocalMeta = {
      id,
      createdAt: new Date().toISOString(),
      network: options.network ?? true,
      egress: this.opts.egress ?? "proxy",
      env: options.env ?? {},
      labels: options.labels ?? {},
      hostWorkspace: options.hostWorkspace ?? join(disk ?? dir, "workspace"),
      external: options.hostWorkspace !== undefined,
      disk: disk !== undefined,
      owner: { uid: owner.uid, gid: owner.gid },
    };
    await privateDir(dir, owner);
    if (!meta.external) await sandboxOwnedDir(meta.hostWorkspace, owner);
    await writeMeta(dir, meta);
    await this.expose(dir, meta, owner);
    return new LocalSandbox(meta, dir, this.opts, owner);
  }

  async connect(id: string): Promise<LocalSandbox> {
    const dir = this.dirOf(id);
    const meta = await this.readMeta(dir);
    // After a host reboot the capped disk is unmounted too: mount it before looking for the workspace.
    if (meta?.disk) await mountSandboxDisk(dir).catch(() => {});
    if (!meta || !existsSync(meta.hostWorkspace)) throw new SandboxError("not_found", `sandbox ${id} not found`);
    const owner = this.ownerOf(meta);
    if (!meta.owner && owner.drop && !meta.external) await this.adopt(dir, meta, owner);
    await this.expose(dir, meta, owner);
    const sandbox = new LocalSandbox(meta, dir, this.opts, owner);
    // After a host reboot the overlay is gone but its upper layer is on disk: mount it again.
    if (meta.overlay && !(await isMountPoint(sandbox.hostWorkspace))) {
      if (!existsSync(meta.overlay.lower)) throw new SandboxError("not_found", `sandbox ${id} lost its base checkout`);
      await mountOverlay(meta.overlay, sandbox.hostWorkspace);
    }
    return sandbox;
  }

  async destroy(id: string): Promise<void> {
    const dir = this.dirOf(id);
    killSandboxProcesses(id);
    await stopForwarder(id);
    const meta = await this.readMeta(dir);
    await releaseSandboxLimits(this.opts.limits ?? UNCAPPED_DISK_LIMITS, id);
    const owner = meta ? this.ownerOf(meta) : this.identity;
    const live = liveDir(this.opts.root, id, owner);
    if (meta && (meta.overlay || (meta.external && owner.drop))) await unmount(workspaceView(dir, live, meta, owner));
    if (owner.drop) {
      await unmount(live);
      await rmdir(live).catch(() => undefined);
    }
    // No metadata: a creation that died may have mounted the disk already.
    if (meta?.disk !== false) await removeSandboxDisk(dir);
    await rm(dir, { recursive: true, force: true });
  }

  async list(): Promise<SandboxInfo[]> {
    const names = await readdir(this.opts.root).catch(() => [] as string[]);
    const out: SandboxInfo[] = [];
    for (const name of names.filter((n) => LOCAL_ID_RE.test(n)).sort()) {
      const meta = await this.readMeta(join(this.opts.root, name));
      if (meta) out.push({ id: meta.id, provider: "local", createdAt: meta.createdAt, labels: meta.labels });
    }
    return out;
  }

  /**
   * Sandbox directories without readable metadata (their creator died before writing it), with their
   * age: `list()` cannot show them, so the sweep removes them through this.
   */
  async unlisted(): Promise<Array<{ id: string; mtimeMs: number }>> {
    const names = await readdir(this.opts.root).catch(() => [] as string[]);
    const out: Array<{ id: string; mtimeMs: number }> = [];
    for (const name of names.filter((n) => LOCAL_ID_RE.test(n))) {
      const dir = join(this.opts.root, name);
      if (await this.readMeta(dir)) continue;
      const info = await lstat(dir).catch(() => undefined);
      if (info?.isDirectory()) out.push({ id: name, mtimeMs: info.mtimeMs });
    }
    return out;
  }

  /** The shared checkouts this root's sandboxes mount as their overlay's lower layer (resolved paths). */
  async overlayBases(): Promise<Set<string>> {
    const names = await readdir(this.opts.root).catch(() => [] as string[]);
    const out = new Set<string>();
    for (const name of names.filter((n) => LOCAL_ID_RE.test(n))) {
      const lower = (await this.readMeta(join(this.opts.root, name)))?.overlay?.lower;
      if (lower) out.add(resolve(lower));
    }
    return out;
  }

  /** Home, user database and (root worker) the nosuid,nodev view the sandbox user reaches them by. */
  private async expose(dir: string, meta: LocalMeta, owner: HostIdentity): Promise<void> {
    if (!existsSync(join(dir, "home"))) await sandboxOwnedDir(join(dir, "home"), owner);
    const etc = join(dir, "etc");
    if (!existsSync(join(etc, "group"))) {
      await mkdir(etc, { recursive: true });
      await chmod(etc, 0o755);
      await writeFile(join(etc, "passwd"), SANDBOX_PASSWD, { mode: 0o644 });
      await writeFile(join(etc, "group"), SANDBOX_GROUP, { mode: 0o644 });
    }
    if (!owner.drop) return;
    const live = liveDir(this.opts.root, meta.id, owner);
    await passThroughDir(RUN_ROOT);
    await passThroughDir(join(live, ".."));
    await mkdir(live, { recursive: true, mode: 0o700 });
    try {
      if (!(await isMountPoint(live))) await mountNoSuid(dir, live);
      // An operator's directory is reached the same way: through a nosuid,nodev bind.
      if (meta.external) {
        await mkdir(join(live, "workspace"), { recursive: true });
        if (!(await isMountPoint(join(live, "workspace")))) await mountNoSuid(meta.hostWorkspace, join(live, "workspace"));
      }
    } catch (err) {
      throw new SandboxError("unavailable", `cannot mount the sandbox directory nosuid,nodev (the worker runs as root but may not mount): ${errorMessage(err)}`, { cause: err });
    }
  }

  /** A sandbox from before sandboxes had their own host user: its files become that user's. */
  private async adopt(dir: string, meta: LocalMeta, owner: HostIdentity): Promise<void> {
    await claimTree(meta.overlay ? meta.overlay.upper : meta.hostWorkspace, owner);
    if (meta.overlay && existsSync(meta.overlay.lower)) await claimBaseCheckout(meta.overlay.lower, owner);
    meta.owner = { uid: owner.uid, gid: owner.gid };
    await privateDir(dir, owner);
    await writeMeta(dir, meta);
  }

  /** An operator's own directory: the sandbox runs as its owner (never root: then the sandbox user). */
  private async externalOwner(path: string): Promise<HostIdentity> {
    if (!this.identity.drop) return this.identity;
    const st = await stat(path);
    return st.uid === 0 ? this.identity : { uid: st.uid, gid: st.gid, drop: true };
  }

  private ownerOf(meta: LocalMeta): HostIdentity {
    if (!this.identity.drop || !meta.owner) return this.identity;
    return { ...meta.owner, drop: true };
  }

  private dirOf(id: string): string {
    if (!LOCAL_ID_RE.test(id)) throw new SandboxError("not_found", `"${id}" is not a local sandbox id`);
    return join(this.opts.root, id);
  }

  private async readMeta(dir: string): Promise<LocalMeta | undefined> {
    try {
      return LocalMeta.parse(JSON.parse(await readFile(join(dir, "meta.json"), "utf8")));
    } catch {
      return undefined;
    }
  }
}
