import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { errorMessage } from "../../errors.js";
import { isMountPoint, mountOverlay, unmount, type OverlaySpec } from "../overlay.js";
import { DEFAULT_SANDBOX_LIMITS, releaseSandboxLimits, runLimited, type LimitedResult, type SandboxLimits } from "../limits/sandbox-limits.js";
import { mountSandboxDisk, removeSandboxDisk, trySandboxDisk } from "../limits/workspace-disk.js";
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
import { baseEnv, bwrapBaseArgs } from "./bwrap-args.js";
import { EGRESS_PORT, egressGateway, ensureForwarder, stopForwarder } from "./egress-netns.js";
import type { EgressRules } from "./egress-policy.js";
import { LocalWorkspaceFiles } from "./local-files.js";

export const LOCAL_WORKDIR = "/workspace";
const ID_RE = /^local-[0-9a-f]{16}$/;
const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const LocalMeta = z.object({
  id: z.string().regex(ID_RE),
  createdAt: z.string(),
  network: z.boolean(),
  /** proxy: own network namespace, egress only through the worker's filtering proxy; host: the host's network. */
  egress: z.enum(["proxy", "host"]).default("host"),
  env: z.record(z.string(), z.string()),
  labels: z.record(z.string(), z.string()),
  hostWorkspace: z.string(),
  external: z.boolean(),
  overlay: z.object({ lower: z.string(), upper: z.string(), work: z.string() }).optional(),
  /** The sandbox's writable data lives on its own size-capped filesystem at <dir>/disk. */
  disk: z.boolean().default(false),
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
}

const UNCAPPED_DISK_LIMITS: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, diskMb: 0 };

/** Processes started by this worker, per sandbox, so destroy() can stop them. */
const running = new Map<string, Set<number>>();

export class LocalSandbox implements Sandbox {
  readonly provider = "local" as const;
  readonly workdir: string;
  private readonly args: string[];
  private readonly env: Record<string, string>;
  private readonly files: LocalWorkspaceFiles;
  private readonly proxied: boolean;
  private readonly limits: SandboxLimits;
  private closed = false;

  constructor(
    private meta: LocalMeta,
    private readonly dir: string,
    private readonly opts: LocalProviderOptions,
  ) {
    this.workdir = opts.workdir ?? LOCAL_WORKDIR;
    this.limits = opts.limits ?? UNCAPPED_DISK_LIMITS;
    this.args = bwrapBaseArgs({ hostWorkspace: meta.hostWorkspace, workdir: this.workdir, network: meta.network, tmpMb: this.limits.tmpMb });
    this.proxied = meta.network && meta.egress === "proxy";
    this.env = { ...baseEnv(), ...meta.env };
    this.files = new LocalWorkspaceFiles(this.workdir, (script, o) => this.run(script, o));
  }

  get id(): string {
    return this.meta.id;
  }

  /** Host path bound at `workdir` (local provider only: lets the host mount a base under it). */
  get hostWorkspace(): string {
    return this.meta.hostWorkspace;
  }

  get network(): boolean {
    return this.meta.network;
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const r = await this.run(command, options);
    return { exitCode: r.exitCode, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8"), truncated: r.truncated, timedOut: r.timedOut, ...(r.limit ? { limit: r.limit } : {}) };
  }

  /** exec with raw bytes in and out; file uploads and downloads run through here, inside the sandbox. */
  private async run(command: string, options: ExecOptions & { stdin?: Uint8Array; maxOutputBytes?: number } = {}): Promise<LimitedResult> {
    this.assertOpen();
    let file = "bwrap";
    const args = [...this.args];
    let proxyEnv: Record<string, string> = {};
    const extraFds: number[] = [];
    if (this.proxied) {
      const fwd = await ensureForwarder(egressGateway(this.opts.root, this.opts.egressPolicy), this.id);
      const url = `http://127.0.0.1:${EGRESS_PORT}`;
      proxyEnv = { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: "localhost,127.0.0.1", no_proxy: "localhost,127.0.0.1" };
      // The namespace is entered through a descriptor we hold (fd 3 in the child), never by pid, so a
      // recycled pid can never put the command in someone else's network. nsenter execs bwrap in
      // place (same pid): the timeout still kills the whole group. Unprivileged, the namespace's own
      // user namespace (fd 4) is joined first, keeping our uid: only its owner may enter the network.
      args.unshift("--net=/proc/self/fd/3", ...(fwd.userNsFd === undefined ? [] : ["--user=/proc/self/fd/4", "--preserve-credentials"]), "bwrap");
      extraFds.push(fwd.nsFd, ...(fwd.userNsFd === undefined ? [] : [fwd.userNsFd]));
      file = "nsenter";
    }
    for (const [k, v] of Object.entries({ ...this.env, ...proxyEnv, ...options.env })) {
      if (!ENV_KEY_RE.test(k)) throw new SandboxError("invalid", `invalid env name "${k}"`);
      args.push("--setenv", k, v);
    }
    const cwd = options.cwd ?? this.workdir;
    args.push("--chdir", cwd.startsWith("/") ? cwd : `${this.workdir}/${cwd}`, "/bin/sh", "-c", command);
    const ctx = { sandboxId: this.id, hostWorkspace: this.meta.hostWorkspace, diskMounted: this.meta.disk };
    const r = await runLimited(this.limits, ctx, file, args, {
      env: {},
      timeoutMs: options.timeoutMs ?? this.opts.execTimeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? this.opts.maxOutputBytes,
      ...(options.stdin ? { stdin: options.stdin } : {}),
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
      if (!existsSync(this.meta.hostWorkspace)) throw new SandboxError("not_found", `sandbox ${this.id} workspace is gone`);
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
    return !this.closed && existsSync(this.meta.hostWorkspace) && existsSync(join(this.dir, "meta.json"));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Makes the workspace a copy-on-write layer over `lower` (a checked-out base); survives reconnects. */
  async mountBase(lower: string): Promise<void> {
    this.assertOpen();
    const data = this.meta.disk ? join(this.dir, "disk") : this.dir;
    const overlay: OverlaySpec = { lower, upper: join(data, "upper"), work: join(data, "overlay-work") };
    await mkdir(overlay.upper, { recursive: true });
    await mkdir(overlay.work, { recursive: true });
    await unmount(this.meta.hostWorkspace);
    await mountOverlay(overlay, this.meta.hostWorkspace);
    this.meta = { ...this.meta, overlay };
    await writeMeta(this.dir, this.meta);
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
  await writeFile(tmp, JSON.stringify(meta, null, 2));
  await rename(tmp, join(dir, "meta.json"));
}

/** bubblewrap sandboxes on this machine; one directory per sandbox under `root`, kept across restarts. */
export class LocalSandboxProvider implements SandboxProvider {
  readonly type = "local" as const;

  constructor(private readonly opts: LocalProviderOptions) {}

  async create(options: CreateSandboxOptions = {}): Promise<LocalSandbox> {
    const id = `local-${randomBytes(8).toString("hex")}`;
    const dir = join(this.opts.root, id);
    if (options.hostWorkspace && !existsSync(options.hostWorkspace)) {
      throw new SandboxError("invalid", `workspace directory ${options.hostWorkspace} does not exist`);
    }
    await mkdir(dir, { recursive: true });
    const diskMb = (this.opts.limits ?? UNCAPPED_DISK_LIMITS).diskMb;
    const disk = !options.hostWorkspace && diskMb > 0 ? await trySandboxDisk(dir, diskMb) : undefined;
    const hostWorkspace = options.hostWorkspace ?? join(disk ?? dir, "workspace");
    await mkdir(hostWorkspace, { recursive: true });
    const meta: LocalMeta = {
      id,
      createdAt: new Date().toISOString(),
      network: options.network ?? true,
      egress: this.opts.egress ?? "proxy",
      env: options.env ?? {},
      labels: options.labels ?? {},
      hostWorkspace,
      external: options.hostWorkspace !== undefined,
      disk: disk !== undefined,
    };
    await writeMeta(dir, meta);
    return new LocalSandbox(meta, dir, this.opts);
  }

  async connect(id: string): Promise<LocalSandbox> {
    const dir = this.dirOf(id);
    const meta = await this.readMeta(dir);
    // After a host reboot the capped disk is unmounted too: mount it before looking for the workspace.
    if (meta?.disk) await mountSandboxDisk(dir).catch(() => {});
    if (!meta || !existsSync(meta.hostWorkspace)) throw new SandboxError("not_found", `sandbox ${id} not found`);
    // After a host reboot the overlay is gone but its upper layer is on disk: mount it again.
    if (meta.overlay && !(await isMountPoint(meta.hostWorkspace))) {
      if (!existsSync(meta.overlay.lower)) throw new SandboxError("not_found", `sandbox ${id} lost its base checkout`);
      await mountOverlay(meta.overlay, meta.hostWorkspace);
    }
    return new LocalSandbox(meta, dir, this.opts);
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
    if (meta?.overlay) await unmount(meta.hostWorkspace);
    if (meta?.disk) await removeSandboxDisk(dir);
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
