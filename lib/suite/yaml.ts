// Reading task.yaml and suite.yaml: the `yaml` package parses (YAML 1.2, merge keys on, duplicate
// keys refused, as Go's yaml.v3 did), and every refusal is one ConfigError line
// `<file>:<line>:<col>: <task id|suite name>: <field>: <what was expected>`. Scalars written for a
// string field keep their source text (`version: 2.10` is "2.10"), as the Go decoder did.
import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { type Document, isMap, isPair, isScalar, LineCounter, type Node, parseDocument, visit } from "yaml";
import type { z } from "zod";
import { ConfinedPathError } from "../core/confined.ts";
import { ConfigError, fileProblem } from "../core/errors.ts";
import { keysAt } from "../core/schema-keys.ts";
import { closest } from "../core/suggest.ts";
import { CONFIG, inputProblem, readInputBytes } from "./input.ts";

/** A parsed YAML file: plain data plus what is needed to point at a line. */
export interface YamlSource {
  path: string;
  data: unknown;
  doc: Document.Parsed;
  lines: LineCounter;
}

/**
 * Reads and parses `path`. `stringKeys` are dotted key paths (sequence indices left out, e.g.
 * "variants.version") whose plain scalars stay strings. A null value counts as an absent key.
 */
export function readYaml(path: string, stringKeys: ReadonlySet<string>, what = "file"): YamlSource {
  let bytes: Buffer;
  try {
    // A regular file only (a FIFO is refused without blocking), capped: ./input.ts.
    bytes = readInputBytes(path, CONFIG);
  } catch (error) {
    // The one line every tool gives an input it cannot read (`Cannot read suite "x.yaml": no such file`).
    const code = (error as NodeJS.ErrnoException).code;
    const reason = error instanceof ConfinedPathError ? error.reason : undefined;
    const cannot = (why: string) =>
      new ConfigError(`Cannot read ${what} "${path}": ${why}`, { cause: error });
    if (reason === "missing" || code === "ENOENT" || code === "ENOTDIR") throw cannot("no such file");
    if (reason === "not-regular") throw cannot("not a file");
    throw cannot(reason !== undefined ? inputProblem(error, CONFIG.maxBytes) : fileProblem(error));
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigError(`Cannot read ${what} "${path}": not valid UTF-8`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true, prettyErrors: false });
  const bad = doc.errors[0];
  if (bad) {
    const { line, col } = lines.linePos(bad.pos[0]);
    throw new ConfigError(`${path}:${line}:${col}: invalid YAML: ${firstLine(bad.message)}`);
  }
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === "key" || typeof node.source !== "string") return;
      if (typeof node.value !== "number" && typeof node.value !== "boolean") return;
      const keys = ancestors.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : "?"));
      if (stringKeys.has(keys.join("."))) node.value = node.source;
    },
  });
  let data: unknown;
  try {
    data = dropNulls(doc.toJS({ maxAliasCount: 100 }));
  } catch (error) {
    const why =
      error instanceof RangeError ? "an alias refers to itself" : firstLine((error as Error).message);
    throw new ConfigError(`${path}: invalid YAML: ${why}`);
  }
  return { path, data, doc, lines };
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

type Path = readonly PropertyKey[];

/** `line:col` of the node at `path` (of its key when `key` is given), else of the nearest ancestor. */
export function positionOf(src: YamlSource, path: Path, key?: string): string {
  let node: unknown;
  for (let n = path.length; n >= 0 && node === undefined; n--) {
    const at = path.slice(0, n) as unknown[];
    node = at.length === 0 ? src.doc.contents : src.doc.getIn(at, true);
    if (n === path.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (pair && isScalar(pair.key)) node = pair.key;
    }
  }
  const range = (node as Node | null | undefined)?.range;
  const { line, col } = src.lines.linePos(range ? range[0] : 0);
  return `${line}:${col}`;
}

/** `variants[1].harness`; the empty path is "top level". */
export function fieldName(path: Path): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out === "" ? "top level" : out;
}

function valueAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** A value as the user wrote it, for "got ..." (strings quoted, collections named). */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a mapping";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

const KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  array: "a list",
  object: "a mapping",
  boolean: "true or false",
};

/** The refusal line for a failed check at `path`: `<file>:<l>:<c>: <owner>: <field>: <detail>`. */
export function failure(
  src: YamlSource,
  owner: string,
  path: Path,
  detail: string,
  key?: string,
): ConfigError {
  return new ConfigError(`${src.path}:${positionOf(src, path, key)}: ${owner}: ${detail}`);
}

/** Validates `src.data` with `schema`; the first issue (unknown keys first, as Go reported them) is thrown. */
export function parseWith<T extends z.ZodType>(src: YamlSource, schema: T, owner: string): z.infer<T> {
  const result = schema.safeParse(src.data);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]!;
  const path = issue.path;
  const field = fieldName(path);
  const got = valueAt(src.data, path);
  if (path.length === 0 && issue.code === "invalid_type")
    throw failure(
      src,
      owner,
      path,
      `expected a mapping at the top level, got ${got == null ? "an empty file" : shown(got)}`,
    );
  switch (issue.code) {
    case "unrecognized_keys": {
      const key = issue.keys[0]!;
      const where = path.length === 0 ? "" : `${field}: `;
      // As a misspelt flag or tool is named: the closest key the schema takes there.
      const near = closest(key, keysAt(schema, path, src.data));
      const hint = near ? `: did you mean ${near}?` : "";
      throw failure(src, owner, path, `${where}unknown key ${JSON.stringify(key)}${hint}`, key);
    }
    case "invalid_type":
      if (got === undefined) throw failure(src, owner, path, `${field} is required`);
      throw failure(
        src,
        owner,
        path,
        `${field}: expected ${KINDS[issue.expected] ?? issue.expected}, got ${shown(got)}`,
      );
    case "invalid_value":
      throw failure(
        src,
        owner,
        path,
        `${field}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${shown(got)}`,
      );
    case "too_small":
      if (issue.origin === "string") throw failure(src, owner, path, `${field} is required`);
      if (issue.origin === "array")
        throw failure(src, owner, path, `${field}: expected at least ${issue.minimum} item, got none`);
      throw failure(src, owner, path, `${field}: expected >= ${issue.minimum}, got ${shown(got)}`);
    case "too_big":
      throw failure(src, owner, path, `${field}: expected <= ${issue.maximum}, got ${shown(got)}`);
    default:
      throw failure(src, owner, path, `${field}: ${issue.message}, got ${shown(got)}`);
  }
}

/** Why `rel` may not be used as a path under `root`, or its symlink-resolved absolute path. */
export function resolveWithin(
  root: string,
  rel: string,
): { ok: true; path: string } | { ok: false; why: string } {
  if (isAbsolute(rel) || rel.startsWith("~")) return { ok: false, why: "absolute paths are not allowed" };
  let base: string;
  let path: string;
  try {
    base = realpathSync(root);
  } catch {
    return { ok: false, why: `cannot resolve ${root}` };
  }
  try {
    path = realpathSync(join(base, rel));
  } catch {
    return { ok: false, why: `no such file or directory under ${root}` };
  }
  const r = relative(base, path);
  if (r === ".." || r.startsWith(`..${sep}`) || isAbsolute(r)) return { ok: false, why: `escapes ${root}` };
  return { ok: true, path };
}
