// The one seam for runtime-specific calls. Everything else in lib/ and scripts/ uses node:* modules,
// web globals and process only, so the same code runs under Bun, Node 20 and Deno 2
// (tests/portability.test.ts enforces that this is the only file naming Bun). Each function here has a
// node:* fallback; the Bun path exists only where it is measurably faster or the only way (flock).
// This file imports no node:* module at all: every tool loads it, and in a compiled Bun binary
// node:fs alone costs about a third of a hello world's start-up CPU (node:crypto twice that), more
// than a replayed gh call's own work (tests/bench/dist.ts). Fallbacks load node:fs when first used.
import type * as NodeFs from "node:fs";

/** The parts of Bun.file's result used here. */
interface BunFile {
  stat(): Promise<NodeFs.Stats>;
  slice(start: number, end?: number): { bytes(): Promise<Uint8Array> };
}

declare const Bun:
  | {
      hash: (data: string | Uint8Array) => bigint | number;
      gc: (force: boolean) => void;
      version: string;
      build: (opts: Record<string, unknown>) => Promise<{ success: boolean; logs: unknown[] }>;
      file: (path: string) => BunFile;
      write: (dest: unknown, data: string | Uint8Array) => Promise<number>;
      stdout: unknown;
      stderr: unknown;
    }
  | undefined;
/** Deno's stdout and stderr: one write(2) each call, a full pipe thrown as EAGAIN with nothing written. */
interface DenoWriter {
  writeSync(p: Uint8Array): number;
}
declare const Deno: { version: { deno: string }; stdout: DenoWriter; stderr: DenoWriter } | undefined;

/** Which runtime we are on, for provenance and diagnostics. */
export function runtimeName(): "bun" | "deno" | "node" {
  if (typeof Bun !== "undefined") return "bun";
  if (typeof Deno !== "undefined") return "deno";
  return "node";
}

/** True when the module whose import.meta is given is the process entry point. */
export function isMain(meta: ImportMeta): boolean {
  // In a bundle (`bun build --compile`, or the single-file .mjs that node and deno run) every module
  // shares the bundle's import.meta.url, and the compiled one even the entry's `main: true`, so no
  // module can tell it is the entry. Only a source file can be: bundled modules are never main, and
  // the bundle's entry (scripts/proctor.ts) dispatches without asking.
  if (!meta.url.endsWith(".ts")) return false;
  const main = (meta as ImportMeta & { main?: boolean }).main;
  if (typeof main === "boolean") return main;
  // Node 20 has no import.meta.main: compare the entry script with this module's file.
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    const file = (meta as ImportMeta & { filename?: string }).filename ?? new URL(meta.url).pathname;
    const { realpathSync } = nodeFs();
    return realpathSync(entry) === realpathSync(decodeURIComponent(file));
  } catch {
    return false;
  }
}

const utf8 = new TextEncoder();

/**
 * A fast non-cryptographic 64-bit content hash, as 16 hex digits (cache keys, never security). Bun's
 * wyhash, else 64-bit FNV-1a over the UTF-8 bytes; a key is only ever compared with keys this same
 * runtime made (a cache written under another runtime is a miss, never a wrong hit).
 */
export function fastHash(data: string | Uint8Array): string {
  if (typeof Bun !== "undefined")
    return BigInt.asUintN(64, BigInt(Bun.hash(data)))
      .toString(16)
      .padStart(16, "0");
  return fnv1a64(typeof data === "string" ? utf8.encode(data) : data);
}

/** 64-bit FNV-1a in two 32-bit halves: h ^= byte; h *= 2^40 + 0x1b3 (mod 2^64). */
export function fnv1a64(bytes: Uint8Array): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of bytes) {
    lo = (lo ^ byte) >>> 0;
    const product = lo * 0x1b3; // below 2^41: exact in a double
    hi = (Math.imul(hi, 0x1b3) + Math.floor(product / 0x1_0000_0000) + (lo << 8)) >>> 0;
    lo = product >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/**
 * A full, synchronous garbage collection where the runtime offers one (Bun; Node only with
 * --expose-gc; else nothing). A long streaming pass calls it every few MB of input, so its peak memory
 * stays flat in the input's size instead of growing with the collector's heap.
 */
export function collectGarbage(): void {
  if (typeof Bun !== "undefined") Bun.gc(true);
  else (globalThis as { gc?: () => void }).gc?.();
}

type FlockFn = (fd: number, op: number) => number;
let flockFn: FlockFn | null | undefined;

async function loadFlock(): Promise<FlockFn | null> {
  if (flockFn !== undefined) return flockFn;
  flockFn = null;
  if (typeof Bun !== "undefined" && process.platform !== "win32") {
    try {
      // A computed specifier keeps Node and Deno bundlers from trying to resolve bun:ffi.
      const spec = "bun:ffi";
      const ffi = await import(spec);
      const lib = ffi.dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
        flock: { args: [ffi.FFIType.i32, ffi.FFIType.i32], returns: ffi.FFIType.i32 },
      });
      flockFn = lib.symbols.flock as FlockFn;
    } catch {
      flockFn = null;
    }
  }
  return flockFn;
}

const LOCK_EX = 2;
const LOCK_UN = 8;

/**
 * Takes an exclusive flock(2) on an open descriptor, blocking until granted. Returns false when the
 * runtime cannot flock (Node, Deno): the caller must then fall back to a lock of its own.
 */
export async function flockExclusive(fd: number): Promise<boolean> {
  const flock = await loadFlock();
  if (!flock) return false;
  return flock(fd, LOCK_EX) === 0;
}

/** Releases a lock taken with flockExclusive (closing the descriptor also releases it). */
export async function flockRelease(fd: number): Promise<void> {
  const flock = await loadFlock();
  if (flock) flock(fd, LOCK_UN);
}

/**
 * Bundles the entry script `entry` into `outDir` as code-split ESM that `bun <outDir>/<name>.js` runs
 * without node_modules (chunks load lazily, so a tool pays only for the modules it imports). Returns
 * false when this runtime has no bundler (Node, Deno): the caller must then use a prebuilt bundle.
 */
export async function bundleEntry(entry: string, outDir: string): Promise<boolean> {
  if (typeof Bun === "undefined") return false;
  const result = await Bun.build({
    entrypoints: [entry],
    outdir: outDir,
    target: "bun",
    format: "esm",
    splitting: true,
    minify: { syntax: true, whitespace: true, identifiers: false },
  });
  if (!result.success) throw new Error(`Cannot bundle ${entry}: ${result.logs.map(String).join("; ")}`);
  return true;
}

/** node:fs, loaded on first use (process.getBuiltinModule: Bun, Node 20.16+, Deno 2). */
function nodeFs(): typeof NodeFs {
  return process.getBuiltinModule("node:fs") as typeof NodeFs;
}

/** What stat(2) says of a file, links followed; times in ms (fractions kept where the runtime has them). */
export interface FileStat {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  uid: number;
  mode: number;
  isFile: boolean;
  isDirectory: boolean;
}

/**
 * stat(2) of `path`, links followed, or null when it cannot be stat'ed. Under Bun without node:fs, so
 * a tool that only reads a file or two (gh replay) never loads it.
 */
export async function statFile(path: string): Promise<FileStat | null> {
  try {
    return fileStat(typeof Bun !== "undefined" ? await Bun.file(path).stat() : nodeFs().statSync(path));
  } catch {
    return null;
  }
}

/** statFile through node:fs, for code that has it loaded anyway: the same figures, to the digit. */
export function statFileSync(path: string): FileStat | null {
  try {
    return fileStat(nodeFs().statSync(path));
  } catch {
    return null;
  }
}

function fileStat(st: NodeFs.Stats): FileStat {
  return {
    dev: st.dev,
    ino: st.ino,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    uid: st.uid,
    mode: st.mode,
    isFile: st.isFile(),
    isDirectory: st.isDirectory(),
  };
}

/**
 * Bytes [start, end) of the file at `path` (to its end when `end` is left out), fewer where the file
 * ends first; throws when it cannot be read. Opened read-only and non-blocking, so a FIFO never hangs
 * the read. Under Bun its own reader, without node:fs.
 */
export async function readFileRange(path: string, start: number, end?: number): Promise<Uint8Array> {
  if (typeof Bun !== "undefined") return Bun.file(path).slice(start, end).bytes();
  const fs = nodeFs();
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (end === undefined) return fs.readFileSync(fd).subarray(start);
    const buf = new Uint8Array(Math.max(0, end - start));
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes every byte of `data` to descriptor 1 or 2 through Bun's own writer (no Node stream: a full
 * non-blocking pipe is waited out, a short write continued); undefined where there is none, and the
 * caller writes through node:fs (lib/core/stdio.ts). Rejects with EPIPE when the reader is gone.
 */
export function bunWriteStdio(fd: 1 | 2, data: string | Uint8Array): Promise<number> | undefined {
  if (typeof Bun === "undefined") return undefined;
  return Bun.write(fd === 1 ? Bun.stdout : Bun.stderr, data);
}

/**
 * A writeSync for descriptor 1 or 2 that reports short writes truthfully: Deno's own stdout/stderr
 * (its node:fs writeSync, given a pipe that fills, writes part and throws EAGAIN without the count, so
 * a retry writes that part again); null elsewhere.
 */
export function denoWriteStdio(
  fd: 1 | 2,
): ((fd: number, buffer: Uint8Array, offset: number, length: number) => number) | null {
  if (typeof Deno === "undefined") return null;
  const out = fd === 1 ? Deno.stdout : Deno.stderr;
  return (_fd, buffer, offset, length) => out.writeSync(buffer.subarray(offset, offset + length));
}
