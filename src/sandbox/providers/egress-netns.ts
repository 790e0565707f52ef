import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../run-process.js";
import { SandboxError } from "../types.js";
import { startEgressProxy, type EgressPolicy } from "./egress-proxy.js";

const ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

// Listens on 127.0.0.1:<port> inside the sandbox's network namespace and relays to the worker's proxy socket.
const FORWARDER = `const net=require("net");const [port,sock]=process.argv.slice(1);
const s=net.createServer(c=>{const u=net.connect(sock);c.pipe(u);u.pipe(c);c.on("error",()=>u.destroy());u.on("error",()=>c.destroy());});
s.on("error",e=>{process.stdout.write(e.code==="EADDRINUSE"?"ready\\n":"fail\\n");process.exit(0)});
s.listen(Number(port),"127.0.0.1",()=>process.stdout.write("ready\\n"));`;

export function netnsName(id: string): string {
  return `osw-${id.replace(/^local-/, "")}`;
}

export function netnsPath(id: string): string {
  return `/run/netns/${netnsName(id)}`;
}

async function ip(args: string[]): Promise<void> {
  const r = await runProcess("ip", args, { env: ENV, maxOutputBytes: 64 * 1024, timeoutMs: 10_000 }).catch((err: unknown) => {
    throw new SandboxError("unavailable", `network namespaces need iproute2 (ip): ${String(err)}`);
  });
  if (r.exitCode !== 0) throw new SandboxError("unavailable", `ip ${args.join(" ")}: ${r.stderr.toString().trim()}`);
}

/** A persistent, empty network namespace (loopback only) per network-on sandbox; survives worker restarts. */
export async function ensureNetns(id: string): Promise<void> {
  if (existsSync(netnsPath(id))) return;
  await ip(["netns", "add", netnsName(id)]);
  await ip(["-n", netnsName(id), "link", "set", "lo", "up"]);
}

export async function removeNetns(id: string): Promise<void> {
  if (!existsSync(netnsPath(id))) return;
  const pids = await runProcess("ip", ["netns", "pids", netnsName(id)], { env: ENV, maxOutputBytes: 64 * 1024, timeoutMs: 10_000 });
  for (const pid of pids.stdout.toString().split(/\s+/).filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone
    }
  }
  await ip(["netns", "del", netnsName(id)]).catch(() => undefined);
}

/** Per worker process: its proxy socket and the port its forwarders use, so workers never collide. */
export interface EgressGateway {
  socketPath: string;
  port: number;
  ready: Promise<unknown>;
  forwarders: Map<string, Promise<void>>;
}

const gateways = new Map<string, EgressGateway>();
const policyIds = new WeakMap<EgressPolicy, number>();

/** One gateway per (root, policy) in this process; the default policy is id 0. */
export function egressGateway(root: string, policy?: EgressPolicy): EgressGateway {
  let pid = 0;
  if (policy) {
    pid = policyIds.get(policy) ?? policyIds.set(policy, gateways.size + 1).get(policy)!;
  }
  let socketPath = join(root, ".egress", `${process.pid}-${pid}.sock`);
  // A unix socket path must fit in sun_path (108 bytes).
  if (socketPath.length > 100) socketPath = join(tmpdir(), `osw-egress-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`, `${process.pid}-${pid}.sock`);
  let gw = gateways.get(socketPath);
  if (!gw) {
    gw = { socketPath, port: 20_000 + ((process.pid * 8 + pid) % 40_000), ready: startEgressProxy(socketPath, policy), forwarders: new Map() };
    gateways.set(socketPath, gw);
  }
  return gw;
}

/** Starts (once per sandbox per worker) the forwarder inside the sandbox's namespace. */
export function ensureForwarder(gw: EgressGateway, id: string): Promise<void> {
  let started = gw.forwarders.get(id);
  if (!started) {
    started = (async () => {
      await gw.ready;
      await new Promise<void>((resolve, reject) => {
        const child = spawn("nsenter", [`--net=${netnsPath(id)}`, process.execPath, "-e", FORWARDER, String(gw.port), gw.socketPath], {
          env: ENV,
          detached: true,
          stdio: ["ignore", "pipe", "ignore"],
        });
        child.on("error", reject);
        child.stdout.once("data", (d: Buffer) => {
          child.stdout.destroy();
          child.unref();
          if (d.toString().startsWith("ready")) resolve();
          else reject(new SandboxError("unavailable", `egress forwarder for ${id} failed to start`));
        });
      });
    })();
    started.catch(() => gw.forwarders.delete(id));
    gw.forwarders.set(id, started);
  }
  return started;
}

export function forgetForwarder(id: string): void {
  for (const gw of gateways.values()) gw.forwarders.delete(id);
}
