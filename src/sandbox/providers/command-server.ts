import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { errorMessage } from "../../errors.js";

/** A started command server: its process (stdin/stdout are the protocol) and its end. */
export interface ServerLaunch {
  child: ChildProcess;
  exited: Promise<unknown>;
}

export interface ServerCommand {
  cmd: string;
  env: Record<string, string>;
  cwd: string;
  maxOutputBytes: number;
  stdin?: Uint8Array;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ServerCommandResult {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timedOut: boolean;
  /** The shell could not be started (its cwd is missing); nothing ran. */
  spawnError?: string;
}

const HEAD = 9;
/** The server forwards at most 64 KiB per chunk; anything larger is not from it. */
const MAX_FRAME = 1024 * 1024;
const READY = 4;
const KILL_GRACE_MS = 2_000;

interface Pending {
  child: ChildProcess;
  req: ServerCommand;
  out: Buffer[];
  err: Buffer[];
  size: [number, number];
  truncated: boolean;
  timedOut: boolean;
  timer?: NodeJS.Timeout;
  grace?: NodeJS.Timeout;
  onAbort?: () => void;
  resolve: (r: ServerCommandResult) => void;
}

export const COMMAND_SERVER_PREFIX = "open-swe: ";

/** A length-prefixed field of a request (perl's `N/a*`). */
function field(bytes: Uint8Array | string): Buffer {
  const b = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(b.length, 0);
  return Buffer.concat([head, b]);
}

/** A run request's body (type 1; the layout is in command-server-program.ts). */
function runRequest(id: number, req: ServerCommand): Buffer {
  const head = Buffer.alloc(10);
  head[0] = 1;
  head.writeUInt32BE(id, 1);
  head.writeUInt32BE(Math.min(req.maxOutputBytes, 0xffffffff), 5);
  head[9] = req.stdin ? 1 : 0;
  const env = Object.entries(req.env).flatMap(([k, v]) => [field(k), field(v)]);
  return Buffer.concat([head, field(req.cmd), field(req.cwd), field(req.stdin ?? new Uint8Array()), ...env]);
}

/** A kill request's body (type 2). */
function killRequest(id: number): Buffer {
  const body = Buffer.alloc(5);
  body[0] = 2;
  body.writeUInt32BE(id, 1);
  return body;
}

/**
 * The worker's side of one sandbox's command server (command-server-program.ts): one bubblewrap kept
 * running, and each command a fork inside it — a command costs a process start instead of a sandbox set-up
 * (~14 vs 26–31 ms of host CPU here). The server is part of the sandbox and what it says is read as hostile:
 * frames are size-checked, output is capped here again, a timeout that the server does not honour within
 * 2 s stops it, and a server that breaks its protocol, dies or is killed ends its commands with exit 137
 * and the cause on stderr; the next command starts a new one. `start` resolves undefined when the server
 * could not come up: the caller runs the command the one-bubblewrap-per-command way.
 */
export class CommandServer {
  #child: ChildProcess | undefined;
  #starting: Promise<ChildProcess | undefined> | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;
  #idle: NodeJS.Timeout | undefined;
  #failed = new WeakSet<ChildProcess>();
  /** Bumped by stop(): a server launched before (e.g. before the workspace was remounted) is not used. */
  #generation = 0;

  constructor(
    private readonly launch: () => Promise<ServerLaunch>,
    private readonly idleMs: number,
  ) {}

  /**
   * Runs one command on the server if it is up; undefined when it is not (yet): the caller runs the
   * command another way, and the server is started meanwhile, so no command waits for the server to start.
   */
  async run(req: ServerCommand): Promise<ServerCommandResult | undefined> {
    if (!this.up()) return undefined;
    const child = this.#child!;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
    const id = ++this.#next;
    return new Promise<ServerCommandResult>((resolve) => {
      const p: Pending = { child, req, out: [], err: [], size: [0, 0], truncated: false, timedOut: false, resolve };
      this.#pending.set(id, p);
      this.#ref(child, true);
      const stop = () => {
        if (p.timedOut) return;
        p.timedOut = true;
        this.#write(child, killRequest(id));
        p.grace = setTimeout(() => this.#fail(child, "did not stop a timed-out command"), KILL_GRACE_MS);
      };
      if (req.timeoutMs !== undefined) p.timer = setTimeout(stop, req.timeoutMs);
      if (req.signal) {
        p.onAbort = stop;
        if (req.signal.aborted) stop();
        else req.signal.addEventListener("abort", stop, { once: true });
      }
      this.#write(child, runRequest(id, req));
    });
  }

  /** Whether a server is up to take a command now; when not, one is started meanwhile. */
  up(): boolean {
    if (this.#child) return true;
    void this.#ensure();
    return false;
  }

  /** Starts the server (if it is not up) and says whether it is. */
  async start(): Promise<boolean> {
    return (await this.#ensure()) !== undefined;
  }

  /** Stops the server; its running commands end with exit 137. A start under way is discarded when it comes up. */
  stop(why = "the sandbox was closed"): void {
    this.#generation++;
    if (this.#child) this.#fail(this.#child, why);
  }

  #write(child: ChildProcess, body: Buffer): void {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length, 0);
    child.stdin?.write(Buffer.concat([head, body]));
  }

  #ref(child: ChildProcess, on: boolean): void {
    for (const s of [child.stdin, child.stdout, child.stderr] as Array<Socket | null>) on ? s?.ref() : s?.unref();
    if (on) child.ref();
    else child.unref();
  }

  #ensure(): Promise<ChildProcess | undefined> {
    if (this.#child) return Promise.resolve(this.#child);
    this.#starting ??= this.#start().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #start(): Promise<ChildProcess | undefined> {
    const generation = this.#generation;
    let launched: ServerLaunch;
    try {
      launched = await this.launch();
    } catch {
      return undefined;
    }
    const { child } = launched;
    // A server coming up keeps no process alive (a one-command CLI exits; the server dies with it).
    this.#ref(child, false);
    for (const s of [child.stdin, child.stdout, child.stderr]) s?.on("error", () => undefined);
    child.stderr?.resume();
    return new Promise((resolve) => {
      let ready = false;
      let buf: Buffer = Buffer.alloc(0);
      const startup = setTimeout(() => ended("did not start within 10 s"), 10_000).unref();
      const ended = (why: string) => {
        clearTimeout(startup);
        if (!ready) {
          ready = true;
          resolve(undefined);
        }
        this.#fail(child, why);
      };
      child.stdout!.on("data", (chunk: Buffer) => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        while (buf.length >= 4) {
          const len = buf.readUInt32BE(0);
          if (len < HEAD - 4 || len > MAX_FRAME) return ended("sent a malformed frame");
          if (buf.length < 4 + len) break;
          const type = buf[4]!;
          const id = buf.readUInt32BE(5);
          const bytes = buf.subarray(HEAD, 4 + len);
          buf = buf.subarray(4 + len);
          if (type === READY && !ready && generation !== this.#generation) {
            return ended("was stopped while it started");
          } else if (type === READY && !ready) {
            ready = true;
            clearTimeout(startup);
            this.#child = child;
            this.#ref(child, false);
            resolve(child);
          } else if (!this.#frame(child, type, id, bytes)) return ended("sent a malformed frame");
        }
      });
      void launched.exited.then(
        () => ended("stopped"),
        (err: unknown) => ended(`stopped: ${errorMessage(err)}`),
      );
    });
  }

  /** One frame from the server; false when it is not one it may send. */
  #frame(child: ChildProcess, type: number, id: number, bytes: Buffer): boolean {
    const p = this.#pending.get(id);
    if (type === 1 || type === 2) {
      if (!p) return id <= this.#next;
      const i = type - 1;
      const room = p.req.maxOutputBytes - p.size[i]!;
      if (bytes.length > room) p.truncated = true;
      if (room > 0) {
        const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
        (i === 0 ? p.out : p.err).push(Buffer.from(kept));
        p.size[i]! += kept.length;
      }
      return true;
    }
    if (type !== 3 || !p) return false;
    let exit: { code?: unknown; signal?: unknown; truncated?: unknown; spawnError?: unknown };
    try {
      exit = JSON.parse(bytes.toString("utf8")) as typeof exit;
    } catch {
      return false;
    }
    const code = typeof exit.code === "number" ? exit.code : 128 + (exit.signal === "SIGKILL" ? 9 : exit.signal === "SIGTERM" ? 15 : 0);
    this.#settle(child, id, {
      exitCode: p.timedOut ? 124 : code,
      stdout: Buffer.concat(p.out),
      stderr: Buffer.concat(p.err),
      truncated: p.truncated || exit.truncated === true,
      timedOut: p.timedOut,
      ...(typeof exit.spawnError === "string" ? { spawnError: exit.spawnError } : {}),
    });
    return true;
  }

  #settle(child: ChildProcess, id: number, r: ServerCommandResult): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    clearTimeout(p.timer);
    clearTimeout(p.grace);
    if (p.onAbort) p.req.signal?.removeEventListener("abort", p.onAbort);
    p.resolve(r);
    if (this.#pending.size === 0 && this.#child === child) {
      this.#ref(child, false);
      this.#idle = setTimeout(() => this.stop("idle"), this.idleMs);
      this.#idle.unref();
    }
  }

  /** Ends the server and every command it runs (exit 137, or 124 for one that timed out, the cause on stderr). */
  #fail(child: ChildProcess, why: string): void {
    if (this.#failed.has(child)) return;
    this.#failed.add(child);
    if (this.#child === child) this.#child = undefined;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone already
    }
    child.stdout?.removeAllListeners("data");
    this.#ref(child, false);
    for (const [id, p] of [...this.#pending]) {
      if (p.child !== child) continue;
      const note = Buffer.from(`\n${COMMAND_SERVER_PREFIX}the sandbox's command server ${why} while the command ran: it was stopped\n`);
      this.#settle(child, id, { exitCode: p.timedOut ? 124 : 137, stdout: Buffer.concat(p.out), stderr: Buffer.concat([...p.err, note]), truncated: p.truncated, timedOut: p.timedOut });
    }
  }
}
