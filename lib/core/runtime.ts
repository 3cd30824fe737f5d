// The one seam for runtime-specific calls. Everything else in lib/ and scripts/ uses node:* modules,
// web globals and process only, so the same code runs under Bun, Node 20 and Deno 2
// (tests/portability.test.ts enforces that this is the only file naming Bun). Each function here has a
// node:* fallback; the Bun path exists only where it is measurably faster or the only way (flock).
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

declare const Bun:
  | {
      hash: (data: string | Uint8Array) => bigint | number;
      gc: (force: boolean) => void;
      version: string;
      build: (opts: Record<string, unknown>) => Promise<{ success: boolean; logs: unknown[] }>;
    }
  | undefined;
declare const Deno: { version: { deno: string } } | undefined;

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
    return realpathSync(entry) === realpathSync(fileURLToPath(meta.url));
  } catch {
    return false;
  }
}

/** A fast non-cryptographic 64-bit content hash, as 16 hex digits (cache keys, never security). */
export function fastHash(data: string | Uint8Array): string {
  if (typeof Bun !== "undefined")
    return BigInt.asUintN(64, BigInt(Bun.hash(data)))
      .toString(16)
      .padStart(16, "0");
  return createHash("sha1").update(data).digest("hex").slice(0, 16);
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
