import { endianness } from "node:os";
import { assemble, encode, NEXT, SECCOMP_DATA, SECCOMP_RET, type AsmOp, type BpfInsn } from "./seccomp-bpf.js";

/**
 * The sandbox's seccomp filter, modelled on Docker's default profile: the calls Docker refuses to a
 * container without extra capabilities (mount and the new mount API, kernel keyring, bpf, perf events,
 * ptrace and its relatives (process_vm_*, pidfd_getfd, kcmp), module and kexec calls, namespace creation and joining, clock and swap changes, io_uring,
 * userfaultfd, handle-based opens, NUMA policy) fail with EPERM; everything else is allowed. The
 * namespaces and capabilities bwrap sets up stay the first line; this closes the kernel surface behind them.
 */

export type SeccompArch = "x86_64" | "aarch64";

const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };
const EPERM = 1;
const ENOSYS = 38;
/** x86_64 x32 ABI calls carry this bit in nr; they would bypass a filter written for the 64-bit numbers. */
const X32_SYSCALL_BIT = 0x40000000;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME. */
export const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;
/** personality() values Docker allows: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32, and the query. */
export const ALLOWED_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff] as const;

/** Refused outright (EPERM). Names are the kernel's; each maps to its number per arch below. */
export const DENIED_SYSCALLS = [
  // filesystems and mounts
  "mount",
  "umount2",
  "pivot_root",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "quotactl",
  "quotactl_fd",
  "nfsservctl",
  "swapon",
  "swapoff",
  "name_to_handle_at",
  "open_by_handle_at",
  "fanotify_init",
  // kernel keyring
  "add_key",
  "request_key",
  "keyctl",
  // kernel code, tracing, introspection
  "bpf",
  "perf_event_open",
  "init_module",
  "finit_module",
  "delete_module",
  "kexec_load",
  "kexec_file_load",
  "lookup_dcookie",
  "syslog",
  "acct",
  "ptrace",
  // Reading or writing another process's memory or taking its descriptors: Docker allows these only with CAP_SYS_PTRACE.
  "process_vm_readv",
  "process_vm_writev",
  "process_madvise",
  "pidfd_getfd",
  "kcmp",
  "userfaultfd",
  // namespaces (creation with flags is checked on clone/unshare below)
  "setns",
  // host state
  "reboot",
  "settimeofday",
  "clock_settime",
  "clock_adjtime",
  "sethostname",
  "setdomainname",
  "vhangup",
  // NUMA policy (Docker: needs CAP_SYS_NICE)
  "mbind",
  "set_mempolicy",
  "get_mempolicy",
  "migrate_pages",
  "move_pages",
  "set_mempolicy_home_node",
  // io_uring (Docker's default refuses it since 2023: a large, often-exploited surface)
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  // x86 only
  "iopl",
  "ioperm",
  "modify_ldt",
  "uselib",
  "ustat",
  "sysfs",
  "_sysctl",
  "create_module",
  "get_kernel_syms",
  "query_module",
] as const;
export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];

type Special = "clone" | "unshare" | "clone3" | "personality";
type SyscallName = DeniedSyscall | Special;

/** From linux/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64); absent = no such call on that arch. */
export const SYSCALL_NUMBERS: Record<SeccompArch, Partial<Record<SyscallName, number>>> = {
  x86_64: {
    clone: 56,
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    kcmp: 312,
    pidfd_getfd: 438,
    process_madvise: 440,
    syslog: 103,
    uselib: 134,
    personality: 135,
    ustat: 136,
    sysfs: 139,
    vhangup: 153,
    modify_ldt: 154,
    pivot_root: 155,
    _sysctl: 156,
    acct: 163,
    settimeofday: 164,
    mount: 165,
    umount2: 166,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    sethostname: 170,
    setdomainname: 171,
    iopl: 172,
    ioperm: 173,
    create_module: 174,
    init_module: 175,
    delete_module: 176,
    get_kernel_syms: 177,
    query_module: 178,
    quotactl: 179,
    nfsservctl: 180,
    lookup_dcookie: 212,
    clock_settime: 227,
    mbind: 237,
    set_mempolicy: 238,
    get_mempolicy: 239,
    kexec_load: 246,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    migrate_pages: 256,
    unshare: 272,
    move_pages: 279,
    perf_event_open: 298,
    fanotify_init: 300,
    name_to_handle_at: 303,
    open_by_handle_at: 304,
    clock_adjtime: 305,
    setns: 308,
    finit_module: 313,
    kexec_file_load: 320,
    bpf: 321,
    userfaultfd: 323,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    clone3: 435,
    mount_setattr: 442,
    quotactl_fd: 443,
    set_mempolicy_home_node: 450,
  },
  aarch64: {
    lookup_dcookie: 18,
    umount2: 39,
    mount: 40,
    pivot_root: 41,
    nfsservctl: 42,
    vhangup: 58,
    quotactl: 60,
    acct: 89,
    personality: 92,
    unshare: 97,
    kexec_load: 104,
    init_module: 105,
    delete_module: 106,
    clock_settime: 112,
    syslog: 116,
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    kcmp: 272,
    pidfd_getfd: 438,
    process_madvise: 440,
    reboot: 142,
    sethostname: 161,
    setdomainname: 162,
    settimeofday: 170,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    clone: 220,
    swapon: 224,
    swapoff: 225,
    mbind: 235,
    get_mempolicy: 236,
    set_mempolicy: 237,
    migrate_pages: 238,
    move_pages: 239,
    perf_event_open: 241,
    fanotify_init: 262,
    name_to_handle_at: 264,
    open_by_handle_at: 265,
    clock_adjtime: 266,
    setns: 268,
    finit_module: 273,
    bpf: 280,
    userfaultfd: 282,
    kexec_file_load: 294,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    clone3: 435,
    mount_setattr: 442,
    quotactl_fd: 443,
    set_mempolicy_home_node: 450,
  },
};

export function seccompArchOf(nodeArch: string = process.arch): SeccompArch | undefined {
  if (endianness() !== "LE") return undefined;
  return nodeArch === "x64" ? "x86_64" : nodeArch === "arm64" ? "aarch64" : undefined;
}

export function seccompProgram(arch: SeccompArch): BpfInsn[] {
  const nr = SYSCALL_NUMBERS[arch];
  const num = (name: SyscallName): number | undefined => nr[name];
  const ops: AsmOp[] = [
    { op: "ld", offset: SECCOMP_DATA.arch },
    // A call made through another ABI (i386 int 0x80 on x86_64) has other numbers: kill, never guess.
    { op: "jeq", k: AUDIT_ARCH[arch], jt: NEXT, jf: "kill" },
    { op: "ld", offset: SECCOMP_DATA.nr },
  ];
  if (arch === "x86_64") ops.push({ op: "jge", k: X32_SYSCALL_BIT, jt: "deny", jf: NEXT });
  const denied = [...new Set(DENIED_SYSCALLS.map(num).filter((n): n is number => n !== undefined))].sort((a, b) => a - b);
  for (const n of denied) ops.push({ op: "jeq", k: n, jt: "deny", jf: NEXT });
  // clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone (as Docker does).
  ops.push({ op: "jeq", k: num("clone3")!, jt: "enosys", jf: NEXT });
  ops.push({ op: "jeq", k: num("clone")!, jt: "ns_flags", jf: NEXT });
  ops.push({ op: "jeq", k: num("unshare")!, jt: "ns_flags", jf: NEXT });
  ops.push({ op: "jeq", k: num("personality")!, jt: "personality", jf: NEXT });
  ops.push({ op: "ret", k: SECCOMP_RET.allow });
  // clone(flags, …) and unshare(flags) both take the flags in the first argument on both arches.
  ops.push({ op: "label", name: "ns_flags" }, { op: "ld", offset: SECCOMP_DATA.argLow(0) });
  ops.push({ op: "jset", k: CLONE_NAMESPACE_FLAGS, jt: "deny", jf: NEXT }, { op: "ret", k: SECCOMP_RET.allow });
  ops.push({ op: "label", name: "personality" }, { op: "ld", offset: SECCOMP_DATA.argLow(0) });
  for (const p of ALLOWED_PERSONALITIES) ops.push({ op: "jeq", k: p, jt: "allow", jf: NEXT });
  ops.push({ op: "ret", k: SECCOMP_RET.errno(EPERM) });
  ops.push({ op: "label", name: "allow" }, { op: "ret", k: SECCOMP_RET.allow });
  ops.push({ op: "label", name: "enosys" }, { op: "ret", k: SECCOMP_RET.errno(ENOSYS) });
  ops.push({ op: "label", name: "deny" }, { op: "ret", k: SECCOMP_RET.errno(EPERM) });
  ops.push({ op: "label", name: "kill" }, { op: "ret", k: SECCOMP_RET.killProcess });
  return assemble(ops);
}

const cache = new Map<SeccompArch, Buffer>();

/** The encoded filter for this machine's arch (what bwrap's --seccomp reads), or undefined when unsupported. */
export function seccompFilterBytes(arch: SeccompArch | undefined = seccompArchOf()): Buffer | undefined {
  if (!arch) return undefined;
  let b = cache.get(arch);
  if (!b) cache.set(arch, (b = encode(seccompProgram(arch))));
  return b;
}
