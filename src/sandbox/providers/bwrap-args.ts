import { existsSync, lstatSync, readlinkSync } from "node:fs";

/** Non-secret /etc entries programs need (users, DNS, TLS roots, loader cache, alternatives). */
const ETC_ENTRIES = [
  "passwd", "group", "hosts", "resolv.conf", "nsswitch.conf", "host.conf", "gai.conf", "services", "protocols",
  "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "ssl/certs", "ssl/openssl.cnf", "ca-certificates",
  "alternatives", "mime.types", "os-release",
];
/** Top-level names that are symlinks into /usr on merged-usr systems, or real dirs elsewhere. */
const ROOT_LINKS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

let hostArgs: string[] | undefined;

/** The read-only host view, computed once per process: existence checks are not repeated per exec. */
export function hostView(): string[] {
  if (hostArgs) return hostArgs;
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const name of ROOT_LINKS) {
    const p = `/${name}`;
    if (!existsSync(p)) continue;
    if (lstatSync(p).isSymbolicLink()) args.push("--symlink", readlinkSync(p), p);
    else args.push("--ro-bind", p, p);
  }
  for (const e of ETC_ENTRIES) if (existsSync(`/etc/${e}`)) args.push("--ro-bind", `/etc/${e}`, `/etc/${e}`);
  hostArgs = args;
  return args;
}

export interface BwrapLayout {
  hostWorkspace: string;
  workdir: string;
  network: boolean;
  /** Size cap of the private /tmp (MiB); /dev/shm gets Docker's 64 MiB. Unset: unbounded tmpfs. */
  tmpMb?: number;
}

const MiB = 1024 * 1024;

/** Everything up to the per-exec part (env, cwd, command); built once per sandbox handle. */
export function bwrapBaseArgs(layout: BwrapLayout): string[] {
  return [
    ...hostView(),
    "--proc", "/proc",
    "--dev", "/dev",
    ...(layout.tmpMb ? ["--size", String(64 * MiB), "--tmpfs", "/dev/shm", "--size", String(layout.tmpMb * MiB)] : []),
    "--tmpfs", "/tmp",
    "--bind", layout.hostWorkspace, layout.workdir,
    // The sandbox's own root is a tmpfs: make it read-only too, so only /workspace and /tmp take writes.
    "--remount-ro", "/",
    "--unshare-user", "--uid", "1000", "--gid", "1000", "--disable-userns",
    "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "sandbox",
    ...(layout.network ? [] : ["--unshare-net"]),
    "--cap-drop", "ALL",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
  ];
}

export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The only environment a sandboxed command starts with, before the caller's additions. */
export function baseEnv(): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: "/tmp", LANG: "C.UTF-8", TERM: "dumb" };
}
