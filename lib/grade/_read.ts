// How the general tools (lib/grade/general.ts) find and read their files: `file` is relative to OUT
// (a leading `OUT/` is the same thing), `golden` relative to the case directory; both are read through
// lib/core/confined.ts (no link at any component, never a FIFO or device, capped by --max-file-bytes).
import { ConfinedPathError, readConfined } from "../core/confined.ts";
import { decodeUtf8, MAX_FILE_BYTES } from "./out.ts";
import type { GradeContext } from "./types.ts";

/** A path under a root: relative, as the assertion shows it (`OUT/a.txt`, `expected/a.md`). */
export interface RootedPath {
  rel: string;
  shown: string;
}

/** The assertion's `file` under OUT. */
export function outFile(file: unknown, _ctx: GradeContext): RootedPath {
  const rel = String(file).replace(/^OUT\//, "");
  return { rel, shown: `OUT/${rel}` };
}

/** The assertion's `golden` under the case directory. */
export function caseFile(golden: unknown, _caseDir: string): RootedPath {
  const rel = String(golden);
  return { rel, shown: rel };
}

/** What went wrong reading a file, without its content. */
export function readProblem(error: unknown, shown: string): string {
  if (error instanceof ConfinedPathError) {
    if (error.reason === "missing") return `cannot read ${shown}: no such file`;
    return `cannot read ${shown}: ${error.why}`;
  }
  return `cannot read ${shown}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
}

export type ReadText =
  | { ok: true; shown: string; text: string; bytes: Buffer }
  | { ok: false; reason: string };

/** Reads an OUT file as UTF-8 text (`binary`: any bytes, decoded leniently for display). */
export function readText(p: RootedPath, ctx: GradeContext, binary = false): ReadText {
  let bytes: Buffer;
  try {
    bytes = readConfined(ctx.outDir, p.rel, { maxBytes: ctx.maxFileBytes ?? MAX_FILE_BYTES });
  } catch (error) {
    return { ok: false, reason: readProblem(error, p.shown) };
  }
  const text = decodeUtf8(bytes);
  if (text !== null) return { ok: true, shown: p.shown, text, bytes };
  if (binary) return { ok: true, shown: p.shown, text: bytes.toString("utf8"), bytes };
  return { ok: false, reason: `cannot read ${p.shown}: not valid UTF-8` };
}

/** Line `n` (1-based) of `text`, cut to 120 characters, for a failure line. */
export function excerpt(text: string, n: number): string {
  const line = text.split("\n")[n - 1] ?? "";
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
}
