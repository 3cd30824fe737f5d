// JSON Lines files validated row by row (suite trials, the judge history): one reader, so every
// format reports a bad row the same way, naming the file, the line and the field; and one whole JSON
// file validated the same way (a shard's result or scorecard given to merge).
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { jsonSyntaxWhere } from "../compat/py/json.ts";
import { ConfigError, fileProblem } from "./errors.ts";

/** First zod issue as `<message> at <path>`. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  return `${issue?.message ?? "invalid"}${at}`;
}

/**
 * Parses JSONL `text` (blank lines skipped) with `schema`; each row is returned as written (nothing
 * defaulted). ConfigError `Cannot parse|load <noun> "<path>": line N: ...` on the first bad row.
 */
export function parseJsonl<T>(text: string, path: string, schema: z.ZodType, noun: string): T[] {
  const rows: T[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      // The position, never the text: a key file given as a history must not come back in the error.
      throw new ConfigError(`Cannot parse ${noun} "${path}": line ${i + 1}: ${jsonSyntaxWhere(line)}`);
    }
    const result = schema.safeParse(data);
    if (!result.success)
      throw new ConfigError(`Cannot load ${noun} "${path}": line ${i + 1}: ${firstIssue(result.error)}`);
    rows.push(data as T);
  });
  return rows;
}

/**
 * Reads one JSON file checked with `schema`: unreadable is a ConfigError `Cannot read <noun> "<path>":
 * <why>` (no such file, ...), not JSON or not the format `Cannot load <noun> "<path>": <why>` (exit
 * `exitCode`, else ConfigError's own).
 */
export function loadJsonFile<T>(path: string, schema: z.ZodType<T>, noun: string, exitCode?: number): T {
  const fail = (why: string, cause?: unknown, verb = "load") =>
    new ConfigError(`Cannot ${verb} ${noun} "${path}": ${why}`, {
      ...(cause !== undefined ? { cause } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
    });
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw fail(fileProblem(error), error, "read");
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fail((error as Error).message, error);
  }
  const r = schema.safeParse(data);
  if (!r.success) throw fail(firstIssue(r.error));
  return r.data;
}
