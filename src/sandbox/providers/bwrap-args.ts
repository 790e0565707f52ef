import { existsSync, lstatSync, readlinkSync } from "node:fs";

/** Non-secret /etc entries programs need (DNS, TLS roots, loader cache, alternatives); users are the sandbox's own. */
const ETC_ENTRIES = [
  "hosts",
  "resolv.conf",
  "nsswitch.conf",
  "host.conf",
  "gai.conf",
  "services",
  "protocols",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "ssl/certs",
  "ssl/openssl.cnf",
  "ca-certificates",
  "alternatives",
  "mime.types",
  "os-release",
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

export const SANDBOX_UID = 1000;
export const SANDBOX_HOME = "/home/sandbox";

/** The sandbox's whole user database: `id` and `~` name the sandbox user, never a host user. */
export const SANDBOX_PASSWD = `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`;
export const SANDBOX_GROUP = `root:x:0:\nsandbox:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`;

export interface BwrapLayout {
  hostWorkspace: string;
  workdir: string;
  network: boolean;
  /** Size cap of the private /tmp (MiB); /dev/shm gets Docker's 64 MiB. Unset: unbounded tmpfs. */
  tmpMb?: number;
  /** Per-sandbox home on the host, kept between commands (caches, venvs, ~/.config). */
  hostHome: string;
  /** Directory holding the sandbox's `passwd` and `group`. */
  etcDir: string;
}

const MiB = 1024 * 1024;

/** Everything up to the per-exec part (env, cwd, command); built once per sandbox handle. */
export function bwrapBaseArgs(layout: BwrapLayout): string[] {
  return [
    ...hostView(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...(layout.tmpMb ? ["--size", String(64 * MiB), "--tmpfs", "/dev/shm", "--size", String(layout.tmpMb * MiB)] : []),
    "--tmpfs",
    "/tmp",
    "--bind",
    layout.hostWorkspace,
    layout.workdir,
    "--bind",
    layout.hostHome,
    SANDBOX_HOME,
    "--ro-bind",
    `${layout.etcDir}/passwd`,
    "/etc/passwd",
    "--ro-bind",
    `${layout.etcDir}/group`,
    "/etc/group",
    // The sandbox's own root is a tmpfs: make it read-only too, so only /workspace and /tmp take writes.
    "--remount-ro",
    "/",
    "--unshare-user",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--hostname",
    "sandbox",
    ...(layout.network ? [] : ["--unshare-net"]),
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
  ];
}

export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The only environment a sandboxed command starts with, before the caller's additions. */
export function baseEnv(): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: SANDBOX_HOME, LANG: "C.UTF-8", TERM: "dumb" };
}
