// The seccomp filter generator: what the program answers for every denied call, a few allowed ones,
// a foreign arch and x32 numbers (by running the program), the byte layout bwrap reads, and that the
// loaded filter answers EPERM for every denied number inside the real bwrap sandbox.
import { describe, expect, test } from "bun:test";
import { run } from "../../../lib/core/proc.ts";
import { detectSandbox, prepareWorkDir } from "../../../lib/isolation/sandbox/index.ts";
import {
  ARCHES,
  compileFilter,
  DENIED,
  EPERM,
  evaluate,
  filterProgram,
  hostFilter,
  printfEscape,
  RET_ALLOW,
  RET_ERRNO,
  RET_KILL_PROCESS,
} from "../../../lib/isolation/sandbox/seccomp.ts";
import { tempDir } from "../../support/tmp.ts";

const DENY = RET_ERRNO | EPERM;
/** Calls every subject needs, by arch: read, write, openat, execve, clone, clone3, wait4, exit_group. */
const ALLOWED = {
  x64: { read: 0, write: 1, openat: 257, execve: 59, clone: 56, clone3: 435, wait4: 61, exit_group: 231 },
  arm64: {
    read: 63,
    write: 64,
    openat: 56,
    execve: 221,
    clone: 220,
    clone3: 435,
    wait4: 260,
    exit_group: 94,
  },
};

describe("filterProgram", () => {
  for (const key of ["x64", "arm64"] as const) {
    const arch = ARCHES[key];
    const prog = filterProgram(arch);
    test(`${arch.name}: every denied call answers EPERM, the calls subjects use are allowed`, () => {
      const answer = (nr: number) => evaluate(prog, { arch: arch.auditArch, nr });
      expect({
        denied: Object.fromEntries(DENIED.map((n) => [n, answer(arch.numbers[n])])),
        allowed: Object.fromEntries(Object.entries(ALLOWED[key]).map(([n, nr]) => [n, answer(nr)])),
      }).toEqual({
        denied: Object.fromEntries(DENIED.map((n) => [n, DENY])),
        allowed: Object.fromEntries(Object.keys(ALLOWED[key]).map((n) => [n, RET_ALLOW])),
      });
    });
    test(`${arch.name}: a foreign arch is killed, x32 numbers are refused where they exist`, () => {
      const i386 = 0x40000003;
      expect({
        foreign: evaluate(prog, { arch: i386, nr: 0 }),
        other: evaluate(prog, { arch: key === "x64" ? ARCHES.arm64.auditArch : ARCHES.x64.auditArch, nr: 0 }),
        x32read: evaluate(prog, { arch: arch.auditArch, nr: 0x40000000 }),
      }).toEqual({
        foreign: RET_KILL_PROCESS,
        other: RET_KILL_PROCESS,
        x32read: arch.x32 ? DENY : RET_ALLOW,
      });
    });
  }
});

test("compileFilter lays out struct sock_filter little-endian, 8 bytes per instruction", () => {
  const bytes = compileFilter(ARCHES.x64);
  const prog = filterProgram(ARCHES.x64);
  expect({ length: bytes.length, head: [...bytes.subarray(0, 16)] }).toEqual({
    length: prog.length * 8,
    // ld [4] (the arch); jeq AUDIT_ARCH_X86_64 (0xc000003e), jt 1, jf 0
    head: [0x20, 0, 0, 0, 4, 0, 0, 0, 0x15, 0, 1, 0, 0x3e, 0, 0, 0xc0],
  });
  expect(printfEscape(bytes.subarray(0, 4))).toBe("\\x20\\x00\\x00\\x00");
});

test("hostFilter knows x64 and arm64 only", () => {
  expect({
    x64: hostFilter("x64")?.length,
    arm64: hostFilter("arm64")?.length,
    riscv: hostFilter("riscv64"),
  }).toEqual({
    x64: filterProgram(ARCHES.x64).length * 8,
    arm64: filterProgram(ARCHES.arm64).length * 8,
    riscv: null,
  });
});

// Each denied number called with junk arguments: the filter answers EPERM before the kernel looks
// at them (unfiltered, most give EINVAL, EFAULT, EBADF or ESRCH instead). getpid is the control.
const PROBE_PY = `import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
for a in sys.argv[1:]:
    name, nr = a.split("=")
    r = libc.syscall(ctypes.c_long(int(nr)), ctypes.c_long(-1), ctypes.c_long(-1), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    print(name, "OK" if r >= 0 else ctypes.get_errno())
`;

const bwrap = await detectSandbox({ prefer: "bwrap" });
const hostArch = ARCHES[process.arch as keyof typeof ARCHES];

test("inside bwrap every denied number answers EPERM and getpid still works", async () => {
  if (!bwrap.ok) throw new Error(`${bwrap.reason}\nremedy: ${bwrap.remedy}`);
  if (!hostArch) throw new Error(`no seccomp table for ${process.arch}`);
  using work = tempDir("proctor-sbx-seccomp");
  prepareWorkDir(bwrap.sandbox, work.path);
  const getpid = process.arch === "x64" ? 39 : 172;
  const calls = [...DENIED.map((n) => `${n}=${hostArch.numbers[n]}`), `getpid=${getpid}`];
  const { argv, env } = bwrap.sandbox.wrap({
    workDir: work.path,
    cwd: work.path,
    env: { PATH: "/usr/bin:/bin" },
    command: ["python3", "-c", PROBE_PY, ...calls],
  });
  const r = await run(argv, { env, timeoutMs: 30_000 });
  expect({ exit: r.exitCode, stdout: r.stdout }).toEqual({
    exit: 0,
    stdout: `${[...DENIED.map((n) => `${n} ${EPERM}`), "getpid OK"].join("\n")}\n`,
  });
});
