// Reading one promotion-store JSON file at the boundary: strict UTF-8, JSON, then a zod schema; every
// failure is one ConfigError line naming the file, the field and what was expected. JSON syntax
// errors use Python's words (lib/compat/py/json.ts), so messages do not depend on the runtime.
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { PyJsonError, parsePyJson } from "../compat/py/json.ts";
import { lineColumn } from "../compat/py/text.ts";
import { ConfigError } from "../core/errors.ts";
import { CASE_TOOLS } from "../grade/case.ts";

/** Reads, decodes (strict UTF-8), parses and validates one JSON file; ConfigError on any failure. */
export function parseFile<T extends z.ZodType>(path: string, kind: string, schema: T): z.infer<T> {
  let data: unknown;
  let text = "";
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(path));
    data = JSON.parse(text);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === "ENOENT") throw new ConfigError(`Cannot read ${kind} "${path}": no such file`);
    if (error instanceof SyntaxError)
      throw new ConfigError(`Cannot parse ${kind} "${path}": ${syntaxError(text, e)}`);
    if (error instanceof TypeError) throw new ConfigError(`Cannot read ${kind} "${path}": not valid UTF-8`);
    throw new ConfigError(`Cannot read ${kind} "${path}": ${e.message}`, { cause: error });
  }
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new ConfigError(`Cannot load ${kind} "${path}": ${describeIssue(result.error.issues, data, kind)}`);
}

/** Python's words for a JSON syntax error (the same under every runtime), else the runtime's. */
function syntaxError(text: string, error: Error): string {
  try {
    parsePyJson(text);
  } catch (py) {
    if (py instanceof PyJsonError) {
      const { line, column } = lineColumn(text, py.pos);
      return `${py.msg} at line ${line} column ${column}`;
    }
  }
  return error.message; // NaN/Infinity: Python accepts them, JSON does not
}

/** `criteria[0].id` for ["criteria", 0, "id"]; `top level` for []. */
export function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "top level";
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur = data;
  for (const p of path)
    cur = cur !== null && typeof cur === "object" ? (cur as Record<PropertyKey, unknown>)[p] : undefined;
  return cur;
}

export function shown(value: unknown): string {
  return value === undefined ? "nothing" : JSON.stringify(value);
}

const KINDS: Record<string, string> = {
  object: "an object",
  record: "an object",
  array: "a list",
  string: "a string",
  number: "a number",
};

/** One line for the first issue (unknown fields first): `<expectation> at <field>, got <value>`. */
function describeIssue(issues: z.core.$ZodIssue[], data: unknown, kind: string): string {
  const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]!;
  const field = fieldName(issue.path);
  const got = shown(valueAt(data, issue.path));
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown field ${JSON.stringify(issue.keys[0])} at ${field}`;
    case "invalid_type":
      if (issue.expected === "int") return `expected an integer at ${field}, got ${got}`;
      return `expected ${KINDS[issue.expected] ?? issue.expected} at ${field}, got ${got}`;
    case "invalid_value":
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")} at ${field}, got ${got}`;
    case "too_small":
      if (issue.origin === "string")
        return `expected at least ${issue.minimum} characters at ${field}, got ${got}`;
      if (issue.origin === "array")
        return `expected at least ${issue.minimum} item(s) at ${field}, got ${got}`;
      return `expected >= ${issue.minimum} at ${field}, got ${got}`;
    case "too_big":
      return `expected <= ${issue.maximum} at ${field}, got ${got}`;
    case "invalid_union":
      if (issue.path.at(-1) === "tool")
        return `expected one of ${CASE_TOOLS.join(", ")} at ${field}, got ${got}`;
      return `expected a grade assertion at ${field}, got ${got}`;
    case "invalid_key":
      return `expected ${kind === "sealed key" ? "a blind id (8 hex digits)" : "a task id"} as key at ${fieldName(issue.path.slice(0, -1))}, got ${JSON.stringify(issue.path.at(-1))}`;
    default:
      return `expected ${issue.message} at ${field}, got ${got}`;
  }
}
