import type { ChildProcess } from "node:child_process";
import type { SandboxLimits } from "../../config/sandbox-config.js";
import { existsSync } from "node:fs";
import { lstat, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../errors.js";
import { limitRuntime, runLimited, watchLimits, withLimitHit, type LimitedResult, type LimitedRunContext } from "../limits/sandbox-limits.js";
import { claimBaseCheckout, claimTree, sandboxOwnedDir, type HostIdentity } from "../host-identity.js";
import { mountOverlay, unmount, type OverlaySpec } from "../overlay.js";
import { findExecutable } from "../find-executable.js";
import { writeBranchHead, type BranchHead } from "./branch-head.js";
import { SandboxError, type DownloadResult, type ExecOptions, type ExecResult, type Sandbox, type SandboxProcess, type UploadFile, type UploadResult } from "../types.js";
import { baseEnv, bwrapBaseArgs, type BwrapLayout } from "./bwrap-args.js";
import { EGRESS_PORT, egressGateway, ensureForwarder } from "./egress-netns.js";
import { LocalWorkspaceFiles } from "./local-files.js";
import { CommandServer } from "./command-server.js";
import { COMMAND_SERVER_PROGRAM } from "./command-server-program.js";
import { LOCAL_WORKDIR, UNCAPPED_DISK_LIMITS, liveDir, workspaceView, writeMeta, type LocalMeta, type LocalProviderOptions } from "./local-dir.js";

const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** A command server with nothing to run stops after this long (its memory counts against the sandbox's). */
const SERVER_IDLE_MS = 30_000;
/** The command server's interpreter (perl-base: every Debian or Ubuntu with git has it). */
const SERVER_PERL = "/usr/bin/perl";

type RunOptions = ExecOptions & { stdin?: Uint8Array; maxOutputBytes?: number; stdinStream?: boolean; onChild?: (child: ChildProcess) => void };

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
  private readonly live: string;
  private readonly server: CommandServer | undefined;
  /** The egress forwarder (and so the network namespace) the command server was started with. */
  private serverNet: unknown;
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
    // The server is a perl program; the sandbox sees the host's /usr.
    this.server = opts.commandServer !== false && existsSync(SERVER_PERL) ? new CommandServer(() => this.startServer(), SERVER_IDLE_MS) : undefined;
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

  /** What the limits need to know of this sandbox (its cgroups, and where its disk use is measured). */
  private get limitContext(): LimitedRunContext {
    return { sandboxId: this.id, hostWorkspace: this.meta.hostWorkspace, diskMounted: this.meta.disk };
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
          resolve({
            stdin: child.stdin!,
            stdout: child.stdout!,
            exited: exited.then(
              (r) => ({ exitCode: r.exitCode, stderr: r.stderr.toString("utf8") }),
              (err: unknown) => ({ exitCode: 127, stderr: errorMessage(err) }),
            ),
            kill: () => ac.abort(),
          });
        },
      });
      exited.catch((err: unknown) => {
        if (!started) reject(err);
      });
    });
  }

  /** exec with raw bytes in and out; file uploads and downloads run through here, inside the sandbox. */
  private async run(command: string, options: RunOptions = {}): Promise<LimitedResult> {
    this.assertOpen();
    if (this.server && !options.stdinStream && !options.onChild) {
      const r = await this.viaServer(this.server, command, options);
      if (r) return r;
    }
    return this.direct(command, options);
  }

  /** Starts the sandbox's command server now; false when it cannot run one (tests and benchmarks wait for it). */
  startCommandServer(): Promise<boolean> {
    return this.server?.start() ?? Promise.resolve(false);
  }

  /** One command as a fork of the sandbox's command server; undefined while none is up. */
  private async viaServer(server: CommandServer, command: string, options: RunOptions): Promise<LimitedResult | undefined> {
    if (this.proxied) {
      // The network namespace lives as long as its forwarder: a server started in an earlier one has no way out.
      const fwd = await ensureForwarder(egressGateway(this.opts.root, this.opts.egressPolicy), this.id);
      if (this.serverNet !== fwd) server.stop("was restarted with the sandbox's new network namespace");
      this.serverNet = fwd;
    }
    // Not up yet: the command runs in a bubblewrap of its own, with nothing below done twice.
    if (!server.up()) return undefined;
    const env = this.commandEnv(options.env, this.proxied ? proxyEnv() : {});
    const cwd = this.cwdOf(options.cwd);
    const rt = await limitRuntime(this.limits);
    const ac = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, ac.signal]) : ac.signal;
    const watch = watchLimits(this.limits, this.limitContext, rt, () => ac.abort());
    try {
      const r = await server.run({
        cmd: command,
        env,
        cwd,
        maxOutputBytes: options.maxOutputBytes ?? this.opts.maxOutputBytes,
        timeoutMs: options.timeoutMs ?? this.opts.execTimeoutMs,
        signal,
        ...(options.stdin ? { stdin: options.stdin } : {}),
      });
      if (!r) return undefined;
      if (r.spawnError !== undefined) {
        if (!existsSync(this.hostWorkspace)) throw new SandboxError("not_found", `sandbox ${this.id} workspace is gone`);
        throw new SandboxError("exec_failed", `cannot start the command in ${cwd}: ${r.spawnError}`);
      }
      return withLimitHit(r, await watch.finish(), watch.forkBomb() && !options.signal?.aborted);
    } finally {
      watch.stop();
    }
  }

  /** The sandbox's command server: `perl -e` in a bubblewrap of its own, without a time limit. */
  private startServer(): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
    return new Promise((resolve, reject) => {
      let started = false;
      const exited = this.direct(`exec ${SERVER_PERL} -e "$OPEN_SWE_COMMAND_SERVER"`, {
        env: { OPEN_SWE_COMMAND_SERVER: COMMAND_SERVER_PROGRAM },
        server: true,
        maxOutputBytes: 0,
        stdinStream: true,
        onChild: (child) => {
          started = true;
          resolve({ child, exited });
        },
      });
      exited.catch((err: unknown) => {
        if (!started) reject(err);
      });
    });
  }

  private cwdOf(cwd: string | undefined): string {
    const dir = cwd ?? this.workdir;
    return dir.startsWith("/") ? dir : `${this.workdir}/${dir}`;
  }

  private commandEnv(extra: Record<string, string> | undefined, proxyEnv: Record<string, string>): Record<string, string> {
    const env = { ...this.env, ...proxyEnv, ...extra };
    for (const k of Object.keys(env)) if (!ENV_KEY_RE.test(k)) throw new SandboxError("invalid", `invalid env name "${k}"`);
    return env;
  }

  /** One bubblewrap for this command (`server`: for the command server, which has no time limit and watches its commands itself). */
  private async direct(command: string, options: RunOptions & { server?: boolean } = {}): Promise<LimitedResult> {
    // Absolute paths: the sandbox user may not be able to search the worker's PATH.
    const hostPath = this.opts.hostPath ?? HOST_PATH;
    const bwrap = findExecutable("bwrap", hostPath) ?? "bwrap";
    let file = bwrap;
    const args = [...this.args];
    let proxied: Record<string, string> = {};
    let prelude = "";
    const extraFds: number[] = [];
    if (this.proxied) {
      const fwd = await ensureForwarder(egressGateway(this.opts.root, this.opts.egressPolicy), this.id);
      proxied = proxyEnv();
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
    for (const [k, v] of Object.entries(this.commandEnv(options.env, proxied))) args.push("--setenv", k, v);
    args.push("--chdir", this.cwdOf(options.cwd), "/bin/sh", "-c", prelude + command);
    // nsenter must join the namespace as root and drops to the sandbox user itself; bwrap is started as it.
    const as = this.owner.drop && !this.proxied ? { uid: this.owner.uid, gid: this.owner.gid } : {};
    const r = await runLimited(this.limits, this.limitContext, file, args, {
      env: { PATH: hostPath },
      ...as,
      closeInheritedFds: true,
      ...(options.server ? { watch: false } : { timeoutMs: options.timeoutMs ?? this.opts.execTimeoutMs }),
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

  async writable(): Promise<boolean> {
    const probe = join(this.hostWorkspace, `.open-swe-write-probe-${process.pid}`);
    try {
      await writeFile(probe, "");
      await rm(probe, { force: true });
      return true;
    } catch (err) {
      // Only a read-only filesystem says the sandbox is broken; a full one (ENOSPC) is said as such later.
      return (err as NodeJS.ErrnoException).code !== "EROFS";
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.server?.stop();
  }

  /**
   * Makes the workspace a copy-on-write layer over `lower` (a checked-out base); survives reconnects.
   * With `head`, a sandbox whose upper layer is new gets HEAD on `head.branch` written by the host into
   * that layer before it is mounted (no sandbox process can have reached a directory created here and
   * not mounted yet); true when it was, false when the caller must put HEAD there from inside.
   */
  async mountBase(lower: string, head?: BranchHead): Promise<boolean> {
    this.assertOpen();
    if (this.opts.overlay === false) throw new SandboxError("unavailable", "overlay workspaces are turned off (SANDBOX_LOCAL_OVERLAY=off)");
    if (!this.owner.drop) throw new SandboxError("unavailable", "overlay workspaces need a root worker");
    // Its bubblewrap binds the workspace as it was: the next command starts a server that sees the overlay.
    this.server?.stop("was restarted for a new workspace mount");
    // On the sandbox's capped disk when it has one: the upper layer is what the sandbox writes.
    const data = this.meta.disk ? join(this.dir, "disk") : this.dir;
    const overlay: OverlaySpec = { lower, upper: join(data, "upper"), work: join(data, "overlay-work") };
    const fresh = (await lstat(overlay.upper).catch(() => undefined)) === undefined;
    await claimBaseCheckout(lower, this.owner);
    // An upper layer that was mounted before is the sandbox's writing: unmounted first, and its `.git`
    // taken only when it is a real directory (a link left there would point the chown at a host path).
    if (!fresh) await unmount(this.hostWorkspace);
    await sandboxOwnedDir(overlay.upper, this.owner);
    await replaceUnlessDirectory(join(overlay.upper, ".git"));
    await sandboxOwnedDir(join(overlay.upper, ".git"), this.owner);
    const wroteHead = fresh && head !== undefined;
    if (wroteHead) await writeBranchHead(join(overlay.upper, ".git"), head, this.owner);
    await mkdir(overlay.work, { recursive: true, mode: 0o700 });
    await mountOverlay(overlay, this.hostWorkspace);
    this.meta = { ...this.meta, overlay };
    await writeMeta(this.dir, this.meta);
    return wroteHead;
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

function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${EGRESS_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: "localhost,127.0.0.1", no_proxy: "localhost,127.0.0.1" };
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

/** Kills what this worker started in the sandbox (each process group), for destroy(). */
export function killSandboxProcesses(id: string): void {
  for (const pid of running.get(id) ?? []) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  running.delete(id);
}

/** A path that must be a directory the worker may chown: anything else there (a link, a whiteout) is removed, never followed. */
async function replaceUnlessDirectory(path: string): Promise<void> {
  const st = await lstat(path).catch(() => undefined);
  if (st && !st.isDirectory()) await rm(path, { force: true });
}
