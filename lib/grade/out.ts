// The OUT token: grade.py's substitution of the artifact directory into assertion arguments, the
// stricter resolution of `OUT/...` artifact paths that `shell` and `gh-calls` read (pattern, no `..`,
// inside OUT, no symlinks), and the one way the grader reads a file: a path under OUT through
// lib/core/confined.ts (no link at any component, O_NONBLOCK, FIFOs and devices refused, capped), any
// other path regular-only and capped too. It does not decide pass or fail.
import { closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
import { pyOSError } from "../compat/py/text.ts";
import { ConfinedPathError, openConfined, readConfined, readRegular } from "../core/confined.ts";
import { readAt, resolveInside } from "../core/fsx.ts";

/** grade.py's `(?<![A-Za-z0-9_])OUT(?=/|$|[^A-Za-z0-9_])`: OUT as a path root, never inside a word. */
export const OUT_RE = /(?<![A-Za-z0-9_])OUT(?=\/|$|[^A-Za-z0-9_])/g;

/** The only shape an OUT artifact path may take. */
export const OUT_PATH_RE = /^OUT\/[A-Za-z0-9._/-]+$/;

/** The largest artifact `shell` places in one argv item. */
export const ARTIFACT_LIMIT = 64 * 1024;

/** Replaces every OUT token in `value` with `outDir` (`OUTPUT.md` and `TIMEOUT` stay as they are). */
export function subOut(value: string, outDir: string): string {
  return value.replace(OUT_RE, () => outDir);
}

/** Why an OUT path was refused, in words for a reason line. */
export type OutRefusal = "pattern" | "traversal" | "outside" | "symlink";

/**
 * Resolves an `OUT/...` token to a path inside `outDir`: it must match OUT_PATH_RE, contain no `..`
 * segment and cross no symlink. Existence is the caller's question.
 */
export function outArtifact(
  token: string,
  outDir: string,
): { ok: true; path: string } | { ok: false; why: OutRefusal } {
  if (!OUT_PATH_RE.test(token)) return { ok: false, why: "pattern" };
  const rel = token.slice("OUT/".length);
  const r = resolveInside(outDir, rel, { noLinks: true });
  if (r.ok) return r;
  if (r.reason === "symlink") return { ok: false, why: "symlink" };
  if (r.reason === "traversal") return { ok: false, why: "traversal" };
  return { ok: false, why: "outside" };
}

/**
 * The default cap on every file the runner or the grader reads, publishes or keeps: a subject can
 * leave a sparse 2 GiB file that costs it no disk. run-eval's --max-file-bytes raises it.
 */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The root-relative parts of `path` when it lies under `root`, else null. */
export function underRoot(root: string, path: string): string | null {
  const rel = relative(root, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? null : rel;
}

/**
 * Reads a file an assertion names: under OUT (the subject's) without a link at any component,
 * elsewhere (a path the case's author wrote) without a final link; never a FIFO, socket or device
 * (refused without blocking), never more than `maxBytes`. Throws ConfinedPathError.
 */
export function readGraded(path: string, outDir: string, maxBytes = MAX_FILE_BYTES): Buffer {
  const rel = underRoot(outDir, path);
  return rel === null ? readRegular(path, { maxBytes }) : readConfined(outDir, rel, { maxBytes });
}

/** True when `path` is a regular file; under OUT no link may lead there (lib/core/confined.ts). */
export function isGradedFile(path: string, outDir: string): boolean {
  const rel = underRoot(outDir, path);
  try {
    closeSync((rel === null ? openRegularFollow(path) : openConfined(outDir, rel)).fd);
    return true;
  } catch {
    return false;
  }
}

// grade.py's Path.is_file() outside OUT follows links: a stat, then an open that cannot block.
function openRegularFollow(path: string): { fd: number } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  if (fstatSync(fd).isFile()) return { fd };
  closeSync(fd);
  throw new ConfinedPathError(path, "not-regular");
}

/**
 * A read failure as a reason line: grade.py's OSError text for a missing file or a directory (the
 * original's wording), else the refusal, naming the file and what was expected of it.
 */
export function readFailure(error: unknown, shown: string): string {
  if (!(error instanceof ConfinedPathError)) return pyOSError(error, shown);
  if (error.reason === "missing") return pyOSError({ code: "ENOENT" }, shown);
  if (error.reason === "not-regular" && isDirectory(error.path)) return pyOSError({ code: "EISDIR" }, shown);
  return error.message.replace(`"${error.path}"`, `"${shown}"`);
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Reads a regular file without following a final symlink; null when it is not a regular file. */
export function readRegularFile(path: string, limit = MAX_FILE_BYTES): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw error;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    return readAt(fd, 0, Math.min(st.size, limit));
  } finally {
    closeSync(fd);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes strict UTF-8 (a BOM is kept, as Python's "utf-8" codec keeps it); null when invalid. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Reads a `shell` artifact for one argv item: at most 64 KiB, valid UTF-8, no NUL, every `\n`
 * removed. Returns the value or the rejection reason grade.py printed.
 */
export function readArtifactValue(path: string): { ok: true; value: string } | { ok: false; reason: string } {
  let data: Uint8Array | null;
  try {
    data = readRegularFile(path, ARTIFACT_LIMIT + 1);
  } catch (error) {
    return { ok: false, reason: `cannot read OUT artifact: ${pyOSError(error, path)}` };
  }
  if (data === null) return { ok: false, reason: `cannot read OUT artifact: not a regular file: ${path}` };
  if (data.length > ARTIFACT_LIMIT)
    return { ok: false, reason: "OUT artifact exceeds the 64 KiB argv limit" };
  const value = decodeUtf8(data);
  if (value === null) return { ok: false, reason: "OUT artifact is not valid UTF-8" };
  if (value.includes("\0")) return { ok: false, reason: "OUT artifact contains a NUL byte" };
  return { ok: true, value: value.replaceAll("\n", "") };
}
