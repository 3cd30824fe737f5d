// Shared parts of the stats collectors (stats.ts, stats-github.ts, stats-report.ts): soft command
// probes, readers of parsed JSON values and of the run log, and the report's arithmetic (pct, median,
// int/float-keeping subtraction). Internal to lib/grade/idd; Python's value model itself is lib/compat/py.
import { readFileSync, statSync } from "node:fs";
import { parsePyJson } from "../../compat/py/json.ts";
import { pyRound } from "../../compat/py/repr.ts";
import { D, splitlines, strip, universalNewlines } from "../../compat/py/text.ts";
import { isPyDict, num, PyFloat, type PyNum, type PyValue } from "../../compat/py/value.ts";
import { fileProblem } from "../../core/errors.ts";
import { run } from "../../core/proc.ts";

/** A parsed JSON object. */
export type Dict = Record<string, unknown>;

/** The run log exists but cannot be read as UTF-8 text (the report's one failure). */
export class StatsReadError extends Error {}
/** A command whose stdout we want, or null when it failed in any way. */
export type SoftRun = (cmd: string[]) => Promise<string | null>;

export const DR_HEADING = "## Decision Record";
export const SUCCESS = ["success", "merged"];
export const SKIP = ["skipped", "already_resolved"];
export const CLOSES_LINE_RE = new RegExp(`^Closes #${D}+`, "mu");

/** Soft probes run in `cwd` with a 60 s limit, as the original's _run_soft. */
export function softRunner(cwd: string): SoftRun {
  return async (cmd) => {
    try {
      const r = await run(cmd, { cwd, timeoutMs: 60_000 });
      return r.exitCode === 0 ? universalNewlines(r.stdout) : null; // text=True: universal newlines
    } catch {
      return null;
    }
  };
}

export const isDict: (v: unknown) => v is Dict = isPyDict;
export const isInt = (v: unknown): v is PyNum =>
  typeof v === "boolean" || typeof v === "bigint" || typeof v === "number";
export const get = (d: Dict, k: string): unknown => (Object.hasOwn(d, k) ? d[k] : null);
export const text = (v: unknown): string => (typeof v === "string" ? v : "");

export async function ghJson(soft: SoftRun, args: string[]): Promise<PyValue | null> {
  const out = await soft(["gh", ...args]);
  if (out === null) return null;
  try {
    return parsePyJson(out);
  } catch {
    return null;
  }
}

export function readRows(path: string, stripLines: boolean): Dict[] | null {
  try {
    if (!statSync(path).isFile()) return null;
  } catch {
    return null;
  }
  let content: string;
  try {
    content = universalNewlines(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(readFileSync(path)),
    );
  } catch (error) {
    throw new StatsReadError(
      `Cannot read run log "${path}": ${error instanceof TypeError ? "not valid UTF-8" : fileProblem(error)}`,
    );
  }
  const rows: Dict[] = [];
  for (const raw of splitlines(content)) {
    const line = stripLines ? strip(raw) : raw;
    if (stripLines && !line) continue;
    try {
      const row = parsePyJson(line);
      if (isDict(row)) rows.push(row);
    } catch {
      // a malformed line is skipped
    }
  }
  return rows;
}

export const qaOf = (rows: Dict[]) => rows.map((r) => get(r, "qa_cycles")).filter(isInt);

/** `round(100 * n / d) if d else None`. */
export function pct(n: number, d: number): number | null {
  return d ? pyRound((100 * n) / d) : null;
}

/** statistics.median: the middle element itself, or a float mean of the two middle ones. */
export function median(values: readonly PyNum[]): PyNum | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => num(a) - num(b));
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid]!;
  return new PyFloat((num(sorted[mid - 1]!) + num(sorted[mid]!)) / 2);
}

/** `a - b` keeping Python's int/float result type. */
export function subtract(a: PyNum, b: PyNum): PyNum {
  const d = num(a) - num(b);
  return a instanceof PyFloat || b instanceof PyFloat ? new PyFloat(d) : d;
}
