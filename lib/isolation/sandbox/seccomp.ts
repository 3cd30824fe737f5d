// The subject's seccomp filter: a classic-BPF program bwrap loads with `--seccomp FD`. It answers
// EPERM to the calls a subject has no use for and an attacker has many (tracing, io_uring, bpf,
// userfaultfd, keyrings, perf, the mount family, namespaces, kexec, modules) and allows the rest.
// The audit arch is checked first: a foreign one (i386 calls on x86_64 would bypass the numbers) is
// killed, and x32 numbers on x86_64 get EPERM like the list.
import { Buffer } from "node:buffer";

/** The system calls refused (names; numbers per arch below). */
export const DENIED = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "bpf",
  "userfaultfd",
  "keyctl",
  "add_key",
  "request_key",
  "perf_event_open",
  "mount",
  "umount2",
  "pivot_root",
  "move_mount",
  "open_tree",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "unshare",
  "setns",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
] as const;
export type DeniedCall = (typeof DENIED)[number];

/** One architecture: its AUDIT_ARCH value, the denied numbers, and whether x32 numbers exist. */
export interface SeccompArch {
  name: "x86_64" | "aarch64";
  auditArch: number;
  x32: boolean;
  numbers: Record<DeniedCall, number>;
}

// From the kernel's uapi headers (asm/unistd_64.h on x86_64, asm-generic/unistd.h on aarch64).
const SHARED_NEW = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

export const ARCHES: Record<"x64" | "arm64", SeccompArch> = {
  x64: {
    name: "x86_64",
    auditArch: 0xc000003e,
    x32: true,
    numbers: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      bpf: 321,
      userfaultfd: 323,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      perf_event_open: 298,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      unshare: 272,
      setns: 308,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      ...SHARED_NEW,
    },
  },
  arm64: {
    name: "aarch64",
    auditArch: 0xc00000b7,
    x32: false,
    numbers: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      bpf: 280,
      userfaultfd: 282,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      perf_event_open: 241,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      unshare: 97,
      setns: 268,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      ...SHARED_NEW,
    },
  },
};

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
export const RET_KILL_PROCESS = 0x80000000;
export const RET_ERRNO = 0x00050000;
export const RET_ALLOW = 0x7fff0000;
export const EPERM = 1;
const X32_BIT = 0x40000000;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

/** One sock_filter instruction. */
export interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The program as instructions: arch check, x32 check, one jump per denied number, allow, deny. */
export function filterProgram(arch: SeccompArch): Insn[] {
  const nrs = [...new Set(DENIED.map((n) => arch.numbers[n]))].sort((a, b) => a - b);
  const prog: Insn[] = [
    { code: LD_W_ABS, jt: 0, jf: 0, k: OFFSET_ARCH },
    { code: JEQ_K, jt: 1, jf: 0, k: arch.auditArch },
    { code: RET_K, jt: 0, jf: 0, k: RET_KILL_PROCESS },
    { code: LD_W_ABS, jt: 0, jf: 0, k: OFFSET_NR },
  ];
  // The jumps below land on the final deny: after the list come ALLOW, then DENY.
  const n = nrs.length;
  if (arch.x32) prog.push({ code: JGE_K, jt: n + 1, jf: 0, k: X32_BIT });
  nrs.forEach((nr, i) => {
    prog.push({ code: JEQ_K, jt: n - i, jf: 0, k: nr });
  });
  prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW });
  prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_ERRNO | EPERM });
  return prog;
}

/** The program as the bytes bwrap reads (struct sock_filter, little-endian, 8 bytes each). */
export function compileFilter(arch: SeccompArch): Buffer {
  const prog = filterProgram(arch);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((ins, i) => {
    buf.writeUInt16LE(ins.code, i * 8);
    buf.writeUInt8(ins.jt, i * 8 + 2);
    buf.writeUInt8(ins.jf, i * 8 + 3);
    buf.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** What the filter returns for a (arch, nr) pair: runs the program, for tests and the docs. */
export function evaluate(prog: readonly Insn[], data: { arch: number; nr: number }): number {
  let acc = 0;
  for (let pc = 0; pc < prog.length; pc++) {
    const ins = prog[pc]!;
    if (ins.code === LD_W_ABS) acc = ins.k === OFFSET_ARCH ? data.arch : data.nr;
    else if (ins.code === RET_K) return ins.k;
    else if (ins.code === JEQ_K) pc += acc === ins.k ? ins.jt : ins.jf;
    else if (ins.code === JGE_K) pc += acc >= ins.k ? ins.jt : ins.jf;
    else throw new Error(`unknown BPF opcode ${ins.code}`);
  }
  throw new Error("BPF program fell off its end");
}

/** The filter for the machine we run on (Node's process.arch), or null when we have no table for it. */
export function hostFilter(nodeArch: string = process.arch): Buffer | null {
  const arch = ARCHES[nodeArch as keyof typeof ARCHES];
  return arch ? compileFilter(arch) : null;
}

/** The bytes as a `printf %b` argument (`\xNN` each): the filter travels in argv, never via a file. */
export function printfEscape(bytes: Uint8Array): string {
  return [...bytes].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
}
