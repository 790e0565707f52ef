import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalSandboxProvider, type LocalSandbox } from "../../src/sandbox/providers/local.js";
import { assemble, BPF, encode, NEXT, SECCOMP_RET, type BpfInsn } from "../../src/sandbox/limits/seccomp-bpf.js";
import { ALLOWED_PERSONALITIES, CLONE_NAMESPACE_FLAGS, DENIED_SYSCALLS, seccompArchOf, seccompProgram, SYSCALL_NUMBERS, type SeccompArch } from "../../src/sandbox/limits/seccomp-policy.js";

/** A classic-BPF interpreter for the subset the assembler emits, run over a synthetic seccomp_data. */
function runFilter(prog: BpfInsn[], data: { arch: number; nr: number; args?: number[] }): number {
  const word = (off: number): number => {
    if (off === 0) return data.nr >>> 0;
    if (off === 4) return data.arch >>> 0;
    if (off >= 16 && off < 64 && (off - 16) % 8 === 0) return (data.args?.[(off - 16) / 8] ?? 0) >>> 0;
    if (off >= 16 && off < 64) return 0; // high words
    throw new Error(`load out of seccomp_data: ${off}`);
  };
  let acc = 0;
  for (let pc = 0; pc < prog.length; pc++) {
    const i = prog[pc]!;
    switch (i.code) {
      case BPF.ldAbsW:
        acc = word(i.k);
        break;
      case BPF.retK:
        return i.k;
      case BPF.jeqK:
        pc += acc === i.k ? i.jt : i.jf;
        break;
      case BPF.jgtK:
        pc += acc > i.k ? i.jt : i.jf;
        break;
      case BPF.jgeK:
        pc += acc >= i.k ? i.jt : i.jf;
        break;
      case BPF.jsetK:
        pc += (acc & i.k) >>> 0 !== 0 ? i.jt : i.jf;
        break;
      default:
        throw new Error(`unknown opcode ${i.code}`);
    }
  }
  throw new Error("fell off the end of the program");
}

const ARCH = { x86_64: 0xc000003e, aarch64: 0xc00000b7 } as const;
const EPERM = SECCOMP_RET.errno(1);
const ENOSYS = SECCOMP_RET.errno(38);

describe("seccomp BPF assembler", () => {
  it("resolves forward labels and encodes struct sock_filter little-endian", () => {
    const prog = assemble([
      { op: "ld", offset: 0 },
      { op: "jeq", k: 7, jt: "yes", jf: NEXT },
      { op: "ret", k: 1 },
      { op: "label", name: "yes" },
      { op: "ret", k: 2 },
    ]);
    expect(prog).toEqual([
      { code: 0x20, jt: 0, jf: 0, k: 0 },
      { code: 0x15, jt: 1, jf: 0, k: 7 },
      { code: 0x06, jt: 0, jf: 0, k: 1 },
      { code: 0x06, jt: 0, jf: 0, k: 2 },
    ]);
    expect(encode(prog.slice(1, 2)).toString("hex")).toBe("1500010007000000");
    expect(runFilter(prog, { arch: 0, nr: 7 })).toBe(2);
    expect(runFilter(prog, { arch: 0, nr: 8 })).toBe(1);
  });

  it.each([
    [
      "an undefined label",
      [
        { op: "jeq", k: 1, jt: "nowhere", jf: NEXT },
        { op: "ret", k: 0 },
      ],
      /not defined/,
    ],
    [
      "a backward jump",
      [
        { op: "label", name: "top" },
        { op: "ld", offset: 0 },
        { op: "jeq", k: 1, jt: "top", jf: NEXT },
        { op: "ret", k: 0 },
      ],
      /backwards/,
    ],
    ["a missing final return", [{ op: "ld", offset: 0 }], /end with a return/],
    [
      "a duplicate label",
      [
        { op: "label", name: "a" },
        { op: "label", name: "a" },
        { op: "ret", k: 0 },
      ],
      /twice/,
    ],
    ["a constant past 32 bits", [{ op: "ret", k: 2 ** 32 }], /32-bit/],
    [
      "a jump past 255",
      [{ op: "ld", offset: 0 }, { op: "jeq", k: 1, jt: "far", jf: NEXT }, ...Array.from({ length: 256 }, () => ({ op: "ret", k: 0 })), { op: "label", name: "far" }, { op: "ret", k: 1 }],
      /too far/,
    ],
  ] as const)("refuses %s", (_name, ops, err) => {
    expect(() => assemble(ops as never)).toThrow(err);
  });
});

describe.each(["x86_64", "aarch64"] as const)("seccomp policy (%s)", (arch: SeccompArch) => {
  const prog = seccompProgram(arch);
  const nr = SYSCALL_NUMBERS[arch];
  const call = (n: number, args: number[] = []) => runFilter(prog, { arch: ARCH[arch], nr: n, args });

  it("refuses every denied call that exists on this arch with EPERM", () => {
    const present = DENIED_SYSCALLS.filter((s) => nr[s] !== undefined);
    expect(present.length).toBeGreaterThan(arch === "x86_64" ? 55 : 40);
    for (const s of present) expect([s, call(nr[s]!)]).toEqual([s, EPERM]);
  });

  it("allows ordinary calls (read, write, openat, execve, getpid, mmap)", () => {
    const ordinary = arch === "x86_64" ? [0, 1, 257, 59, 39, 9] : [63, 64, 56, 221, 172, 222];
    for (const n of ordinary) expect(call(n)).toBe(SECCOMP_RET.allow);
  });

  it("clone and unshare: threads and forks pass, any namespace flag is refused", () => {
    const thread = 0x3d0f00; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
    expect(call(nr.clone!, [thread])).toBe(SECCOMP_RET.allow);
    expect(call(nr.clone!, [17 /* SIGCHLD: fork */])).toBe(SECCOMP_RET.allow);
    expect(call(nr.unshare!, [0x200 /* CLONE_FS */])).toBe(SECCOMP_RET.allow);
    for (let bit = 0; bit < 32; bit++) {
      const flag = (1 << bit) >>> 0;
      if ((CLONE_NAMESPACE_FLAGS & flag) === 0) continue;
      expect(call(nr.clone!, [17 | flag])).toBe(EPERM);
      expect(call(nr.unshare!, [flag])).toBe(EPERM);
    }
    expect(call(nr.clone3!)).toBe(ENOSYS);
  });

  it("personality: only Docker's values pass", () => {
    for (const p of ALLOWED_PERSONALITIES) expect(call(nr.personality!, [p])).toBe(SECCOMP_RET.allow);
    expect(call(nr.personality!, [0x0040000 /* ADDR_NO_RANDOMIZE */])).toBe(EPERM);
  });

  it("kills a call made through another arch's ABI", () => {
    const other = arch === "x86_64" ? 0x40000003 /* i386 */ : 0x40000028 /* arm */;
    expect(runFilter(prog, { arch: other, nr: 1 })).toBe(SECCOMP_RET.killProcess);
  });

  if (arch === "x86_64") {
    it("refuses x32-ABI numbers (the same calls with bit 30 set)", () => {
      expect(call(39 | 0x40000000)).toBe(EPERM);
      expect(call(nr.mount! | 0x40000000)).toBe(EPERM);
    });
  }
});

/** Each denied call, attempted for real from inside a sandbox. */
const ATTEMPTS: Array<[string, string]> = [
  ["mount", "mount, b'none', b'/tmp', b'tmpfs', 0, 0"],
  ["umount2", "umount2, b'/workspace', 2"],
  ["fsopen", "fsopen, b'tmpfs', 0"],
  ["add_key", "add_key, b'user', b'k', b'v', 1, -2"],
  ["keyctl", "keyctl, 0, -1, 0"],
  ["request_key", "request_key, b'user', b'k', 0, 0"],
  ["bpf", "bpf, 0, 0, 0"],
  ["perf_event_open", "perf_event_open, 0, 0, -1, -1, 0"],
  ["ptrace", "ptrace, 16, 1, 0, 0"],
  // Unfiltered these fail otherwise (EBADF, EFAULT, ESRCH): a command could take the command server's socket or memory.
  ["pidfd_getfd", "pidfd_getfd, -1, 1, 0"],
  ["process_vm_readv", "process_vm_readv, 1, 0, 0, 0, 0, 0"],
  ["process_vm_writev", "process_vm_writev, 1, 0, 0, 0, 0, 0"],
  ["kcmp", "kcmp, 1, 1, 0, 0, 0"],
  ["init_module", "init_module, 0, 0, b''"],
  ["finit_module", "finit_module, 0, b'', 0"],
  ["delete_module", "delete_module, b'loop', 0"],
  ["kexec_load", "kexec_load, 0, 0, 0, 0"],
  ["kexec_file_load", "kexec_file_load, -1, -1, 0, b'', 0"],
  ["setns", "setns, 0, 0"],
  ["unshare", "unshare, 0x10000000"],
  ["userfaultfd", "userfaultfd, 0"],
  ["open_by_handle_at", "open_by_handle_at, -1, 0, 0"],
  ["io_uring_setup", "io_uring_setup, 1, 0"],
  ["clock_settime", "clock_settime, 0, 0"],
];

describe.runIf(seccompArchOf() !== undefined)("seccomp filter inside a real sandbox", () => {
  let root: string;
  let provider: LocalSandboxProvider;
  let sb: LocalSandbox;
  const arch = seccompArchOf()!;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "osw-seccomp-"));
    provider = new LocalSandboxProvider({ root, execTimeoutMs: 20_000, maxOutputBytes: 1 << 20 });
    sb = await provider.create({ network: false });
    const nums = Object.fromEntries(ATTEMPTS.map(([name]) => [name, SYSCALL_NUMBERS[arch][name as keyof (typeof SYSCALL_NUMBERS)[typeof arch]]]));
    const lines = ATTEMPTS.map(([name, args]) => `try_(${JSON.stringify(name)}, ${args.replace(/^\w+/, String(nums[name]))})`);
    await writeFile(
      join(sb.hostWorkspace, "attempt.py"),
      [
        "import ctypes, os",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "def try_(name, nr, *args):",
        "    ctypes.set_errno(0)",
        "    r = libc.syscall(nr, *[ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in args])",
        "    print(name, 'ok' if r != -1 else os.strerror(ctypes.get_errno()))",
        ...lines,
      ].join("\n"),
    );
  });
  afterAll(async () => {
    for (const s of await provider.list()) await provider.destroy(s.id);
    await rm(root, { recursive: true, force: true });
  });

  it("every forbidden call fails with EPERM, and the sandbox reports seccomp filtering", async () => {
    const r = await sb.exec("python3 attempt.py; grep '^Seccomp:' /proc/self/status");
    expect(r.stderr).toBe("");
    const results = Object.fromEntries(
      r.stdout
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("Seccomp"))
        .map((l) => [l.split(" ")[0], l.split(" ").slice(1).join(" ")]),
    );
    for (const [name] of ATTEMPTS) expect([name, results[name]]).toEqual([name, "Operation not permitted"]);
    expect(r.stdout).toMatch(/^Seccomp:\s+2$/m);
  });

  it("ordinary work still runs: threads, fork/exec, node, git", async () => {
    const r = await sb.exec(
      'python3 -c \'import threading,subprocess; t=threading.Thread(target=print,args=("thread",)); t.start(); t.join(); print(subprocess.run(["echo","child"],capture_output=True,text=True).stdout.strip())\' && ' +
        'node -e \'require("child_process").execFileSync("true"); console.log("node")\' && git init -q repo && echo git',
    );
    expect(r).toMatchObject({ exitCode: 0 });
    expect(r.stdout.split("\n")).toEqual(["thread", "child", "node", "git", ""]);
  });

  it("after the attempts the worker is alive and a second sandbox answers", async () => {
    const other = await provider.create({ network: false });
    expect((await other.exec("echo ok")).stdout).toBe("ok\n");
  });
});
