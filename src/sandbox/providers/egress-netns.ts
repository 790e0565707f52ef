import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Socket } from "node:net";
import { createLogger } from "../../logger.js";
import { SandboxError } from "../types.js";
import { processAlive } from "../host-id.js";
import { hostView } from "./bwrap-args.js";
import { githubApiRules, type EgressRules } from "./egress-policy.js";
import { superviseEgressProxy, type EgressProxyProcess } from "./egress-supervisor.js";

const ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };
export const EGRESS_PORT = 3128;

// Runs in its own network namespace (loopback only, set up by bwrap): listens on 127.0.0.1:<port>
// and relays every connection to the worker's proxy socket, each opened with one line naming the
// sandbox it serves (the proxy's per-sandbox quota; the sandbox's own bytes follow it). While the proxy process is being
// restarted the socket refuses: the relay retries for up to 10 s, holding the sandbox's bytes.
// It exits when the worker goes away (bwrap --die-with-parent, and its stdin closes), and the
// namespace goes with it.
const FORWARDER = `const net=require("net");const [port,sock,id]=process.argv.slice(1);
process.stdin.on("end",()=>process.exit(0));process.stdin.on("error",()=>process.exit(0));process.stdin.resume();
const relay=(c,n)=>{const u=net.connect(sock);let up=false;c.u=u;
u.on("connect",()=>{up=true;u.write("OSW-SANDBOX "+id+"\\n");c.pipe(u);u.pipe(c);});
u.on("error",()=>{if(!up&&n<100&&!c.destroyed)setTimeout(()=>relay(c,n+1),100);else c.destroy();});};
const s=net.createServer(c=>{c.pause();c.on("error",()=>c.destroy());c.on("close",()=>c.u&&c.u.destroy());relay(c,0);});
s.on("error",()=>{process.stdout.write("fail\\n");process.exit(1)});
s.listen(Number(port),"127.0.0.1",()=>process.stdout.write("ready "+process.pid+"\\n"));`;

/** One per (sandbox, worker process): the namespace is held open by `nsFd` for every exec. */
export interface Forwarder {
  /** The relay process inside the namespace (bwrap's child). */
  pid: number;
  nsFd: number;
  /**
   * The namespace's owning user namespace when it is not ours (an unprivileged worker: bwrap made one
   * for the forwarder). It must be joined first: only its owner may enter the network namespace.
   */
  userNsFd: number | undefined;
  child: ChildProcess;
  /** Closes the descriptors exactly once (a second close could hit a descriptor reused by someone else). */
  release: () => void;
}

export interface EgressGateway {
  socketPath: string;
  proxy: EgressProxyProcess;
  forwarders: Map<string, Promise<Forwarder>>;
}

const gateways = new Map<string, EgressGateway>();
let log: ReturnType<typeof createLogger> | undefined;

/** One gateway (proxy process and socket) per (root, rules) in this process; default: the GitHub API closed. */
export function egressGateway(root: string, rules: EgressRules = githubApiRules()): EgressGateway {
  const rid = createHash("sha256").update(JSON.stringify(rules)).digest("hex").slice(0, 8);
  // The machine too, not only the pid: two containers on one volume are both pid 1 and would unlink each other's.
  const instance = `${createHash("sha256").update(hostname()).digest("hex").slice(0, 8)}-${process.pid}`;
  let socketPath = join(root, ".egress", `${instance}-${rid}.sock`);
  // A unix socket path must fit in sun_path (108 bytes).
  if (socketPath.length > 100) socketPath = join(tmpdir(), `osw-egress-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`, `${instance}-${rid}.sock`);
  let gw = gateways.get(socketPath);
  if (!gw) {
    log ??= createLogger("info", "open-swe-egress");
    gw = { socketPath, proxy: superviseEgressProxy(socketPath, rules, log), forwarders: new Map() };
    gateways.set(socketPath, gw);
  }
  return gw;
}

/** The sandbox's private network namespace and its forwarder, started on first use. */
export async function ensureForwarder(gw: EgressGateway, id: string): Promise<Forwarder> {
  // After a proxy crash, wait for its restart rather than hand the command a dead socket.
  await gw.proxy.whenReady();
  let started = gw.forwarders.get(id);
  if (!started) {
    started = startForwarder(gw, id);
    started.catch(() => gw.forwarders.delete(id));
    gw.forwarders.set(id, started);
  }
  const fwd = await started;
  // Its exit may not have been reported yet: a dead forwarder leaves a namespace with no way out.
  if (!processAlive(fwd.pid)) {
    if (gw.forwarders.get(id) === started) gw.forwarders.delete(id);
    fwd.release();
    return ensureForwarder(gw, id);
  }
  return fwd;
}

async function startForwarder(gw: EgressGateway, id: string): Promise<Forwarder> {
  // bwrap makes the namespace and brings its loopback up. The forwarder sees only the system image,
  // node and the proxy socket's directory: never the sandboxes' workspaces (a copy of their overlay
  // mounts in its mount namespace would keep them busy).
  const socketDir = dirname(gw.socketPath);
  const nodePrefix = dirname(dirname(process.execPath));
  const args = [
    ...hostView(),
    ...(nodePrefix === "/usr" || nodePrefix.startsWith("/usr/") ? [] : ["--ro-bind", nodePrefix, nodePrefix]),
    "--ro-bind",
    socketDir,
    socketDir,
    // No --dev: for devpts an unprivileged bwrap nests a second user namespace, and the network
    // namespace would then belong to one we hold no descriptor for (nsenter could not join it).
    "--dev-bind",
    "/dev/null",
    "/dev/null",
    "--proc",
    "/proc",
    "--unshare-net",
    "--die-with-parent",
    process.execPath,
    "-e",
    FORWARDER,
    String(EGRESS_PORT),
    gw.socketPath,
    id,
  ];
  // The pid the forwarder sees for itself may be in a pid namespace of its own (an unprivileged bwrap
  // makes one): the namespace holder's host pid comes from bwrap's --info-fd (fd 3) instead.
  const child = spawn("bwrap", ["--info-fd", "3", ...args], { env: ENV, stdio: ["pipe", "pipe", "ignore", "pipe"] });
  const pid = await new Promise<number>((resolve, reject) => {
    let info = "";
    let ready = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new SandboxError("unavailable", `egress forwarder for ${id} did not start in time`));
    }, 30_000);
    const settle = (): void => {
      const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
      if (ready && m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new SandboxError("unavailable", `cannot start the egress forwarder: ${e.message}`));
    });
    child.on("exit", () => {
      clearTimeout(timer);
      reject(new SandboxError("unavailable", `egress forwarder for ${id} exited at start`));
    });
    (child.stdio[3] as Socket).on("data", (d: Buffer) => {
      info += d.toString();
      settle();
    });
    child.stdout!.once("data", (d: Buffer) => {
      if (!/^ready \d+/.test(d.toString())) return reject(new SandboxError("unavailable", `egress forwarder for ${id} failed`));
      ready = true;
      settle();
    });
  });
  (child.stdio[3] as Socket).destroy();
  let nsFd: number;
  let userNsFd: number | undefined;
  try {
    ({ nsFd, userNsFd } = openNamespaces(pid, child.pid!));
  } catch (err) {
    child.kill("SIGKILL");
    throw err instanceof SandboxError ? err : new SandboxError("unavailable", `egress forwarder for ${id} is gone: ${(err as Error).message}`);
  }
  child.stdout!.destroy();
  (child.stdin as Socket).unref();
  child.unref();
  let open = true;
  const release = () => {
    if (open) {
      open = false;
      closeQuietly(nsFd);
      if (userNsFd !== undefined) closeQuietly(userNsFd);
    }
  };
  const fwd: Forwarder = { pid, nsFd, userNsFd, child, release };
  child.on("exit", () => {
    // A dead forwarder means no egress: drop it so the next exec starts a fresh one.
    if (gw.forwarders.get(id)) gw.forwarders.delete(id);
    release();
  });
  return fwd;
}

/**
 * Opens the network namespace of `pid` (and its user namespace when that is not ours). Checked after
 * opening: the holder must still be bwrap's child (bwrap is unreaped while we run synchronously, so a
 * recycled pid cannot pass), and the namespace must not be the worker's own (the host network).
 */
function openNamespaces(pid: number, bwrapPid: number): { nsFd: number; userNsFd: number | undefined } {
  const nsFd = openSync(`/proc/${pid}/ns/net`, "r");
  let userNsFd: number | undefined;
  try {
    userNsFd = openSync(`/proc/${pid}/ns/user`, "r");
    const ppid = /^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    if (Number(ppid) !== bwrapPid) throw new SandboxError("unavailable", `egress forwarder: pid ${pid} is not bwrap's child`);
    if (fstatSync(nsFd).ino === statSync("/proc/self/ns/net").ino) {
      throw new SandboxError("unavailable", "egress forwarder did not get its own network namespace");
    }
    if (fstatSync(userNsFd).ino === statSync("/proc/self/ns/user").ino) {
      closeQuietly(userNsFd);
      userNsFd = undefined;
    }
    return { nsFd, userNsFd };
  } catch (err) {
    closeQuietly(nsFd);
    if (userNsFd !== undefined) closeQuietly(userNsFd);
    throw err;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** Stops this process's forwarder for the sandbox; the namespace disappears with it. */
export async function stopForwarder(id: string): Promise<void> {
  for (const gw of gateways.values()) {
    const f = gw.forwarders.get(id);
    gw.forwarders.delete(id);
    const fwd = await f?.catch(() => undefined);
    if (fwd) {
      fwd.child.kill("SIGKILL");
      try {
        process.kill(fwd.pid, "SIGKILL");
      } catch {
        // gone with bwrap
      }
      fwd.release();
    }
  }
}
