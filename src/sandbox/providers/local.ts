import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { z } from "zod";
import { errorMessage } from "../../errors.js";
import { DEFAULT_SANDBOX_LIMITS, releaseSandboxLimits, runLimited, type LimitedResult, type SandboxLimits } from "../limits/sandbox-limits.js";
import { mountSandboxDisk, removeSandboxDisk, trySandboxDisk } from "../limits/workspace-disk.js";
import { claimBaseCheckout, claimTree, passThroughDir, privateDir, sandboxHostIdentity, sandboxOwnedDir, type HostIdentity } from "../host-identity.js";
import { isMountPoint, mountNoSuid, mountOverlay, unmount, type OverlaySpec } from "../overlay.js";
import { findExecutable } from "../find-executable.js";
import {
  SandboxError,
  type CreateSandboxOptions,
  type DownloadResult,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxInfo,
  type SandboxProcess,
  type SandboxProvider,
  type UploadFile,
  type UploadResult,
} from "../types.js";
import { baseEnv, bwrapBaseArgs, SANDBOX_GROUP, SANDBOX_PASSWD, type BwrapLayout } from "./bwrap-args.js";
import { EGRESS_PORT, egressGateway, ensureForwarder, stopForwarder } from "./egress-netns.js";
import type { EgressRules } from "./egress-policy.js";
import { LocalWorkspaceFiles } from "./local-files.js";

export const LOCAL_WORKDIR = "/workspace";
const ID_RE = /^local-[0-9a-f]{16}$/;
const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where a root worker exposes each sandbox directory to the sandbox user: a nosuid,nodev bind mount. */
const RUN_ROOT = "/run/open-swe";
const HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Settings a sandbox's stored metadata predates come back with the safe value: no network, and
// egress only through the filtering proxy — never the host's network.
const LocalMeta = z.object({
  id: z.string().regex(ID_RE),
  createdAt: z.string(),
  network: z.boolean().default(false),
  /** proxy: own network namespace, egress only through the worker's filtering proxy; host: the host's network. */
  egress: z.enum(["proxy", "host"]).default("proxy"),
  env: z.record(z.string(), z.string()),
  labels: z.record(z.string(), z.string()),
  hostWorkspace: z.string(),
  external: z.boolean(),
  overlay: z.object({ lower: z.string(), upper: z.string(), work: z.string() }).optional(),
  /** The sandbox's writable data lives on its own size-capped filesystem at <dir>/disk. */
  disk: z.boolean().default(false),
  /** Host uid/gid the sandbox's processes run as (absent: written before it was recorded). */
  owner: z.object({ uid: z.number().int(), gid: z.number().int() }).optional(),
});
type LocalMeta = z.infer<typeof LocalMeta>;

export interface LocalProviderOptions {
  root: string;
  /** Where the workspace appears inside the sandbox (default /workspace). */
  workdir?: string;
  execTimeoutMs: number;
  maxOutputBytes: number;
  /**
   * How network-on sandboxes get out. "proxy" (default): a private network namespace whose only way
   * out is an HTTP(S) proxy in the worker that refuses loopback, private and metadata addresses.
   * "host": share the host's network (reaches services on the host's loopback: trusted code only).
   */
  egress?: "proxy" | "host";
  /** What the egress proxy refuses beyond internal addresses (default: the github.com API hosts). */
  egressPolicy?: EgressRules;
  /** Hard limits; omitted: the defaults without a disk cap (SANDBOX_DISK_MB gives one via the config). */
  limits?: SandboxLimits;
  /** Host uid/gid of sandbox processes when the worker is root (default 65533). */
  hostUser?: { uid: number; gid: number };
  /** false: never mount an overlay (workspaces are plain copies), e.g. on file systems without it. */
  overlay?: boolean;
  /** Where bwrap and nsenter are looked up (the worker's PATH). */
  hostPath?: string;
}

const UNCAPPED_DISK_LIMITS: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, diskMb: 0 };

/** Processes started by this worker, per sandbox, so destroy() can stop them. */
const running = new Map<string, Set<number>>();

/**
 * The paths of one sandbox directory as the sandbox user reaches them. A non-root worker uses the
 * directory itself (0700, its own). A root worker keeps the directory root-only and exposes it
 * through a nosuid,nodev bind mount under /run: the only way to it that is not root's cannot run a
 * set-uid file or open a device, whatever the sandbox wrote.
 */
function liveDir(root: string, id: string, owner: HostIdentity): string {
  if (!owner.drop) return join(root, id);
  return join(RUN_ROOT, createHash("sha256").update(root).digest("hex").slice(0, 12), id);
}

/** The workspace as the sandbox user reaches it (through `live`), or the operator's own directory. */
function workspaceView(dir: string, live: string, meta: LocalMeta, owner: HostIdentity): string {
  if (meta.external) return owner.drop ? join(live, "workspace") : meta.hostWorkspace;
  return join(live, relative(dir, meta.hostWorkspace));
}

export class LocalSandbox implements Sandbox {
  readonly provider = "local" as const;
  readonly workdir: string;
  private readonly args: string[];
  private readonly env: Record<string, string>;
  private readonly files: LocalWorkspaceFiles;
  private readonly proxied: boolean;
  private readonly limits: SandboxLimits;
  private readonly live: string;
  private closed = false;

  constructor(
    private meta: LocalMeta,
    private readonly dir: string,
    private readonly opts: LocalProviderOptions,
    readonly owner: HostIdentity,
  ) {
    this.workdir = opts.workdir ?? LOCAL_WORKDIR;
    this.limits = opts.limits ?? UNCAPPED_DISK_LIMITS;
    this.live = liveDir(opts.root, meta.id, owner);
    this.args = bwrapBaseArgs(this.layout);
    this.proxied = meta.network && meta.egress === "proxy";
    this.env = { ...baseEnv(), ...meta.env };
    this.files = new LocalWorkspaceFiles(this.workdir, (script, o) => this.run(script, o));
  }

  get id(): string {
    return this.meta.id;
  }

  /** Host path bound at `workdir` (local provider only: lets the host mount a base under it). */
  get hostWorkspace(): string {
    return workspaceView(this.dir, this.live, this.meta, this.owner);
  }

  /** What bwrap binds (the benchmark runs the same invocation bare). */
  get layout(): BwrapLayout {
    return { hostWorkspace: this.hostWorkspace, workdir: this.workdir, network: this.meta.network, hostHome: join(this.live, "home"), etcDir: join(this.live, "etc"), tmpMb: this.limits.tmpMb };
  }

  get network(): boolean {
    return this.meta.network;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const r = await this.run(command, options);
    return { exitCode: r.exitCode, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8"), truncated: r.truncated, timedOut: r.timedOut, ...(r.limit ? { limit: r.limit } : {}) };
  }

  /** `exec`'s isolation (bwrap, limits, seccomp, the sandbox's network) with stdin/stdout left open as streams. */
  openProcess(command: string, options: ExecOptions = {}): Promise<SandboxProcess> {
    const ac = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, ac.signal]) : ac.signal;
    return new Promise((resolve, reject) => {
      let started = false;
      const exited = this.run(command, {
        ...options,
        signal,
        stdinStream: true,
        onChild: (child) => {
          started = true;
          child.stdin?.on("error", () => {});
          resolve({ stdin: child.stdin!, stdout: child.stdout!, exited: exited.then((r) => ({ exitCode: r.exitCode, stderr: r.stderr.toString("utf8") }), (err: unknown) => ({ exitCode: 127, stderr: errorMessage(err) })), kill: () => ac.abort() });
        },
      });
      exited.catch((err: unknown) => {
        if (!started) reject(err);
      });
    });
  }

  /** exec with raw bytes in and out; file uploads and downloads run through here, inside the sandbox. */
  private async run(command: string, options: ExecOptions & { stdin?: Uint8Array; maxOutputBytes?: number; stdinStream?: boolean; onChild?: (child: ChildProcess) => void } = {}): Promise<LimitedResult> {
    this.assertOpen();
    // Absolute paths: the sandbox user may not be able to search the worker's PATH.
    const hostPath = this.opts.hostPath ?? HOST_PATH;
    const bwrap = findExecutable("bwrap", hostPath) ?? "bwrap";
    let file = bwrap;
    const args = [...this.args];
    let proxyEnv: Record<string, string> = {};
    let prelude = "";
    const extraFds: number[] = [];
    if (this.proxied) {
      const fwd = await ensureForwarder(egressGateway(this.opts.root, this.opts.egressPolicy), this.id);
      const url = `http://127.0.0.1:${EGRESS_PORT}`;
      proxyEnv = { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: "localhost,127.0.0.1", no_proxy: "localhost,127.0.0.1" };
      // The namespace is entered through a descriptor we hold (fd 3 in the child), never by pid, so a
      // recycled pid can never put the command in someone else's network. nsenter execs bwrap in
      // place (same pid): the timeout still kills the whole group. Unprivileged, the namespace's own
      // user namespace (fd 4) is joined first, keeping our uid: only its owner may enter the network.
      // A root worker joins as root and nsenter drops to the sandbox user itself.
      const userns = fwd.userNsFd === undefined ? [] : ["--user=/proc/self/fd/4", "--preserve-credentials"];
      const drop = this.owner.drop ? ["--setuid", String(this.owner.uid), "--setgid", String(this.owner.gid)] : [];
      args.unshift("--net=/proc/self/fd/3", ...userns, ...drop, bwrap);
      extraFds.push(fwd.nsFd, ...(fwd.userNsFd === undefined ? [] : [fwd.userNsFd]));
      // nsenter leaves its descriptors open across exec: close them before the command runs.
      prelude = fwd.userNsFd === undefined ? "exec 3<&-\n" : "exec 3<&- 4<&-\n";
      file = findExecutable("nsenter", hostPath) ?? "nsenter";
    }
    for (const [k, v] of Object.entries({ ...this.env, ...proxyEnv, ...options.env })) {
      if (!ENV_KEY_RE.test(k)) throw new SandboxError("invalid", `invalid env name "${k}"`);
      args.push("--setenv", k, v);
    }
    const cwd = options.cwd ?? this.workdir;
    args.push("--chdir", cwd.startsWith("/") ? cwd : `${this.workdir}/${cwd}`, "/bin/sh", "-c", prelude + command);
    // nsenter must join the namespace as root and drops to the sandbox user itself; bwrap is started as it.
    const as = this.owner.drop && !this.proxied ? { uid: this.owner.uid, gid: this.owner.gid } : {};
    const ctx = { sandboxId: this.id, hostWorkspace: this.meta.hostWorkspace, diskMounted: this.meta.disk };
    const r = await runLimited(this.limits, ctx, file, args, {
      env: { PATH: hostPath },
      ...as,
      closeInheritedFds: true,
      timeoutMs: options.timeoutMs ?? this.opts.execTimeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? this.opts.maxOutputBytes,
      ...(options.stdin ? { stdin: options.stdin } : {}),
      ...(options.stdinStream ? { stdinStream: true } : {}),
      ...(options.onChild ? { onChild: options.onChild } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(extraFds.length ? { extraFds } : {}),
      onSpawn: (pid) => track(this.id, pid, true),
      onExit: (pid) => track(this.id, pid, false),
    }).catch((err: unknown) => {
      if (err instanceof SandboxError) throw err;
      throw new SandboxError("unavailable", `cannot start bubblewrap (is the bubblewrap package installed?): ${errorMessage(err)}`, { cause: err });
    });
    const stderr = r.stderr.toString("utf8");
    // bwrap reports its own setup failures (missing workspace, bad cwd) as exit 1 with a "bwrap:" line.
    if (r.exitCode === 1 && stderr.startsWith("bwrap: ")) {
      if (!existsSync(this.hostWorkspace)) throw new SandboxError("not_found", `sandbox ${this.id} workspace is gone`);
      throw new SandboxError("exec_failed", stderr.trim());
    }
    return r;
  }

  upload(files: UploadFile[]): Promise<UploadResult[]> {
    this.assertOpen();
    return this.files.upload(files);
  }

  download(paths: string[]): Promise<DownloadResult[]> {
    this.assertOpen();
    return this.files.download(paths);
  }

  async ping(): Promise<boolean> {
    return !this.closed && existsSync(this.hostWorkspace) && existsSync(join(this.dir, "meta.json"));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Makes the workspace a copy-on-write layer over `lower` (a checked-out base); survives reconnects. */
  async mountBase(lower: string): Promise<void> {
    this.assertOpen();
    if (this.opts.overlay === false) throw new SandboxError("unavailable", "overlay workspaces are turned off (SANDBOX_LOCAL_OVERLAY=off)");
    if (!this.owner.drop) throw new SandboxError("unavailable", "overlay workspaces need a root worker");
    // On the sandbox's capped disk when it has one: the upper layer is what the sandbox writes.
    const data = this.meta.disk ? join(this.dir, "disk") : this.dir;
    const overlay: OverlaySpec = { lower, upper: join(data, "upper"), work: join(data, "overlay-work") };
    await claimBaseCheckout(lower, this.owner);
    await sandboxOwnedDir(overlay.upper, this.owner);
    await sandboxOwnedDir(join(overlay.upper, ".git"), this.owner);
    await mkdir(overlay.work, { recursive: true, mode: 0o700 });
    await unmount(this.hostWorkspace);
    await mountOverlay(overlay, this.hostWorkspace);
    this.meta = { ...this.meta, overlay };
    await writeMeta(this.dir, this.meta);
  }

  /**
   * Hands what the worker wrote into the workspace (a fallback clone, a branch ref) to the sandbox
   * user; shared hard-linked files stay read-only. `path` is a host path inside `hostWorkspace`.
   */
  async claim(path: string): Promise<void> {
    await claimTree(path, this.owner);
  }

  private assertOpen(): void {
    if (this.closed) throw new SandboxError("invalid", `sandbox handle ${this.id} is closed`);
  }
}

function track(id: string, pid: number, add: boolean): void {
  let set = running.get(id);
  if (add) {
    if (!set) running.set(id, (set = new Set()));
    set.add(pid);
  } else if (set) {
    set.delete(pid);
    if (set.size === 0) running.delete(id);
  }
}

async function writeMeta(dir: string, meta: LocalMeta): Promise<void> {
  const tmp = join(dir, `.meta.${process.pid}.tmp`);
  await writeFile(tmp, JSON.stringify(meta, null, 2), { mode: 0o600 });
  await rename(tmp, join(dir, "meta.json"));
}

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
    for (const pid of running.get(id) ?? []) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    running.delete(id);
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
    for (const name of names.filter((n) => ID_RE.test(n)).sort()) {
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
    for (const name of names.filter((n) => ID_RE.test(n))) {
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
    for (const name of names.filter((n) => ID_RE.test(n))) {
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
    if (!ID_RE.test(id)) throw new SandboxError("not_found", `"${id}" is not a local sandbox id`);
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
