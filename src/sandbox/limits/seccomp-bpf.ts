/**
 * A tiny classic-BPF assembler for seccomp filters: loads of `struct seccomp_data` words, forward
 * conditional jumps to labels, returns. Enough for "check the arch, match the syscall number, look at
 * one argument word"; the kernel's verifier requires forward jumps only, which `assemble` enforces.
 */

/** `struct seccomp_data` offsets (little-endian: an argument's low 32 bits come first). */
export const SECCOMP_DATA = { nr: 0, arch: 4, argLow: (i: number) => 16 + 8 * i } as const;

export const SECCOMP_RET = {
  killProcess: 0x80000000,
  allow: 0x7fff0000,
  errno: (errno: number) => 0x00050000 | (errno & 0xffff),
} as const;

/** Opcodes (linux/bpf_common.h). */
export const BPF = {
  ldAbsW: 0x20, // BPF_LD | BPF_W | BPF_ABS
  jeqK: 0x15, // BPF_JMP | BPF_JEQ | BPF_K
  jgtK: 0x25,
  jgeK: 0x35,
  jsetK: 0x45,
  retK: 0x06, // BPF_RET | BPF_K
} as const;

export interface BpfInsn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** A jump target: a label defined later in the program, or the next instruction. */
export type Target = string | { next: true };
export const NEXT: Target = { next: true };

export type AsmOp = { op: "label"; name: string } | { op: "ld"; offset: number } | { op: "jeq" | "jgt" | "jge" | "jset"; k: number; jt: Target; jf: Target } | { op: "ret"; k: number };

const JUMP = { jeq: BPF.jeqK, jgt: BPF.jgtK, jge: BPF.jgeK, jset: BPF.jsetK } as const;
/** BPF_MAXINSNS. */
const MAX_INSNS = 4096;

export function assemble(ops: readonly AsmOp[]): BpfInsn[] {
  const labels = new Map<string, number>();
  let pc = 0;
  for (const o of ops) {
    if (o.op !== "label") {
      pc++;
      continue;
    }
    if (labels.has(o.name)) throw new Error(`BPF label "${o.name}" defined twice`);
    labels.set(o.name, pc);
  }
  if (pc === 0 || pc > MAX_INSNS) throw new Error(`BPF program must have 1..${MAX_INSNS} instructions, has ${pc}`);
  const last = ops.filter((o) => o.op !== "label").at(-1);
  if (last?.op !== "ret") throw new Error("BPF program must end with a return");
  const out: BpfInsn[] = [];
  const offset = (t: Target, at: number): number => {
    if (typeof t !== "string") return 0;
    const dest = labels.get(t);
    if (dest === undefined) throw new Error(`BPF label "${t}" is not defined`);
    const rel = dest - at - 1;
    if (rel < 0) throw new Error(`BPF jump to "${t}" goes backwards`);
    if (rel > 255) throw new Error(`BPF jump to "${t}" is too far (${rel} > 255)`);
    return rel;
  };
  for (const o of ops) {
    const at = out.length;
    switch (o.op) {
      case "label":
        break;
      case "ld":
        out.push({ code: BPF.ldAbsW, jt: 0, jf: 0, k: u32(o.offset) });
        break;
      case "ret":
        out.push({ code: BPF.retK, jt: 0, jf: 0, k: u32(o.k) });
        break;
      default:
        out.push({ code: JUMP[o.op], jt: offset(o.jt, at), jf: offset(o.jf, at), k: u32(o.k) });
    }
  }
  return out;
}

function u32(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`BPF constant ${n} is not a 32-bit unsigned integer`);
  return n;
}

/** `struct sock_filter[]` as the kernel (and bwrap's --seccomp) reads it: 8 bytes per instruction, host order. */
export function encode(insns: readonly BpfInsn[]): Buffer {
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((i, n) => {
    buf.writeUInt16LE(i.code, n * 8);
    buf.writeUInt8(i.jt, n * 8 + 2);
    buf.writeUInt8(i.jf, n * 8 + 3);
    buf.writeUInt32LE(i.k, n * 8 + 4);
  });
  return buf;
}
