// The cassette format as the replayer reads it: gh_shim.py's lenient loader (bad entries are
// skipped, argv items coerced with Python str()), --json normalisation, and the matching index
// (exact first-entry-wins, then prefix entries longest first). It has no zod on purpose: this is the
// replay hot path; the strict schema for lint and the JSON Schema is lib/gh/cassette-schema.ts.
import type * as NodeFs from "node:fs";
import { pyRepr, pyStr } from "../compat/py/repr.ts";
import { codepointCompare, strip } from "../compat/py/text.ts";
import { ToolError } from "../core/errors.ts";
import { readFileRange } from "../core/runtime.ts";

/** One usable cassette entry, normalised once at load. */
export interface CassetteCall {
  /** Position in the cassette's `calls` list. */
  index: number;
  /** argv as recorded, each item coerced with Python str(). */
  argv: string[];
  /** Normalised argv (the matching key). */
  key: string[];
  prefix: boolean;
  stdout: unknown;
  stderr: unknown;
  exit: unknown;
}

/** A loaded cassette: its raw calls list and the usable entries. */
export interface Cassette {
  path: string;
  raw: unknown[];
  calls: CassetteCall[];
}

/** A cassette that cannot be used; the message is the line the shim prints (exit 1). */
export class CassetteError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 1, options);
    this.name = "CassetteError";
  }
}

/** Commands whose output is data: the shim refuses them without a --json field list. */
export const JSON_REQUIRED: readonly (readonly string[])[] = [
  ["issue", "view"],
  ["issue", "list"],
  ["pr", "view"],
  ["pr", "list"],
  ["pr", "checks"],
];

/** True when argv starts with a data command (issue view/list, pr view/list, pr checks). */
export function isDataCommand(argv: readonly string[]): boolean {
  return JSON_REQUIRED.some((p) => p.every((word, i) => argv[i] === word));
}

/** A value flag found by the one-pass parse: `--flag value` (width 2) or `--flag=value` (width 1). */
export interface ValueFlag {
  index: number;
  option: "--json" | "--title" | "--body" | "--body-file";
  value: string;
  joined: boolean;
}

const VALUE_FLAGS: ReadonlySet<string> = new Set(["--json", "--title", "--body", "--body-file"]);

/**
 * The value flags of argv in one pass, as gh_shim.py parses them: a flag followed by a token consumes
 * it (so `--title --json a,b` is a title, and no json flag); otherwise `--flag=value` is one token.
 */
export function parseValueFlags(argv: readonly string[]): ValueFlag[] {
  const out: ValueFlag[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUE_FLAGS.has(a) && i + 1 < argv.length) {
      out.push({ index: i, option: a as ValueFlag["option"], value: argv[i + 1]!, joined: false });
      i++;
      continue;
    }
    const eq = a.indexOf("=");
    if (eq > 0 && VALUE_FLAGS.has(a.slice(0, eq))) {
      out.push({
        index: i,
        option: a.slice(0, eq) as ValueFlag["option"],
        value: a.slice(eq + 1),
        joined: true,
      });
    }
  }
  return out;
}

/** True when argv carries a json flag (`--json X` or `--json=X`, found by the one-pass parse). */
export function hasJsonFlag(argv: readonly string[]): boolean {
  return parseValueFlags(argv).some((f) => f.option === "--json");
}

/** The fields of a --json value: split on commas, stripped, empties dropped, in the given order. */
export function splitFields(value: string): string[] {
  return value
    .split(",")
    .map(strip)
    .filter((f) => f !== "");
}

/** Sorted, stripped, de-emptied field list, as `",".join(sorted(...))` in Python (codepoint order). */
export function normalizeFields(value: string): string {
  return splitFields(value).sort(codepointCompare).join(",");
}

/** Normalises argv: only --json values change (`--json X` and `--json=X`); all else is byte-identical. */
export function normalizeArgv(argv: readonly string[]): string[] {
  const out = [...argv];
  for (const f of parseValueFlags(argv)) {
    if (f.option !== "--json") continue;
    if (f.joined) out[f.index] = `--json=${normalizeFields(f.value)}`;
    else out[f.index + 1] = normalizeFields(f.value);
  }
  return out;
}

/** The fields of the first --json flag in requested order, or null when there is none. */
export function requestedFields(argv: readonly string[]): string[] | null {
  const flag = parseValueFlags(argv).find((f) => f.option === "--json");
  return flag ? splitFields(flag.value) : null;
}

/** The string form of a normalised argv used as a map key. */
export function argvKey(key: readonly string[]): string {
  return JSON.stringify(key);
}

/** Normalises one raw `calls` item, or returns null when the replayer skips it. */
export function toCall(entry: unknown, index: number): CassetteCall | null {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return null;
  const e = entry as Record<string, unknown>;
  if (!Array.isArray(e.argv)) return null;
  const argv = e.argv.map(pyStr);
  return {
    index,
    argv,
    key: normalizeArgv(argv),
    prefix: e.match === "prefix",
    stdout: e.stdout,
    stderr: e.stderr,
    exit: e.exit,
  };
}

/** Checks the root of a parsed cassette and returns its calls list (gh_shim.py's exact messages). */
export function cassetteCalls(root: unknown): unknown[] {
  if (root === null || typeof root !== "object" || Array.isArray(root)) {
    throw new CassetteError("cassette root must be a JSON object");
  }
  const r = root as Record<string, unknown>;
  // Python tests `version in (1, None)`, where True == 1 (and JSON cannot tell 1.0 from 1).
  if (r.version !== undefined && r.version !== null && r.version !== 1 && r.version !== true) {
    throw new CassetteError(
      `unsupported cassette version: ${typeof r.version === "string" ? pyRepr(r.version) : pyStr(r.version)}`,
    );
  }
  const calls = "calls" in r ? r.calls : [];
  if (!Array.isArray(calls)) throw new CassetteError("cassette.calls must be a list");
  return calls;
}

/** Parses cassette text; throws CassetteError with one line for invalid JSON or a bad root. */
export function parseCassette(text: string, path: string): Cassette {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new CassetteError(`cassette is not valid JSON: ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const raw = cassetteCalls(root);
  const calls: CassetteCall[] = [];
  raw.forEach((entry, i) => {
    const call = toCall(entry, i);
    if (call) calls.push(call);
  });
  return { path, raw, calls };
}

/** Reads and parses a cassette file; an unreadable file is a CassetteError too. */
export function loadCassette(path: string): Cassette {
  return parseCassette(readCassetteText(path), path);
}

/** Reads a cassette's bytes as UTF-8 text, mapping read errors to one line. */
export function readCassetteText(path: string): string {
  let bytes: Uint8Array;
  try {
    // node:fs only here, when first needed: the replay path reads through loadCassetteText
    bytes = (process.getBuiltinModule("node:fs") as typeof NodeFs).readFileSync(path);
  } catch (error) {
    throw readError(path, error);
  }
  return decodeCassette(bytes, path);
}

/** readCassetteText without node:fs under Bun (lib/core/runtime.ts): the replay path's whole read. */
export async function loadCassetteText(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readFileRange(path, 0);
  } catch (error) {
    throw readError(path, error);
  }
  return decodeCassette(bytes, path);
}

function readError(path: string, error: unknown): CassetteError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new CassetteError(`cannot read cassette ${path}: ${reason}`, { cause: error });
}

/** A cassette's bytes as UTF-8 text (a BOM stays, and fails JSON.parse as in Python); else one line. */
export function decodeCassette(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new CassetteError(`cannot read cassette ${path}: not valid UTF-8`, { cause: error });
  }
}

/** The lookup structure: exact entries by key (first wins), prefix entries longest first (stable). */
export class CallIndex {
  private readonly exact = new Map<string, CassetteCall>();
  private readonly prefixes: CassetteCall[] = [];
  private sorted = true;

  constructor(calls: readonly CassetteCall[] = []) {
    for (const c of calls) this.add(c);
  }

  /** Adds an entry; an exact key already present keeps its first entry. */
  add(call: CassetteCall): void {
    if (call.prefix) {
      this.prefixes.push(call);
      this.sorted = false;
    } else {
      const k = argvKey(call.key);
      if (!this.exact.has(k)) this.exact.set(k, call);
    }
  }

  /** The entry a normalised call replays, or undefined on a miss. */
  lookup(key: readonly string[]): CassetteCall | undefined {
    return this.exact.get(argvKey(key)) ?? this.prefixOrder().find((p) => isPrefix(p.key, key));
  }

  /** The first exact entry for a key (lint uses it to name the shadowing entry). */
  exactFor(key: readonly string[]): CassetteCall | undefined {
    return this.exact.get(argvKey(key));
  }

  /** Prefix entries in lookup order. */
  prefixOrder(): readonly CassetteCall[] {
    if (!this.sorted) {
      // Array.prototype.sort is stable: equal lengths keep cassette order.
      this.prefixes.sort((a, b) => b.key.length - a.key.length);
      this.sorted = true;
    }
    return this.prefixes;
  }
}

/** True when `prefix` is a leading prefix of `argv` (item by item). */
export function isPrefix(prefix: readonly string[], argv: readonly string[]): boolean {
  return prefix.length <= argv.length && prefix.every((p, i) => p === argv[i]);
}
