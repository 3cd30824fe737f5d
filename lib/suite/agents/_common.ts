// What the three drivers share: reading JSONL and "one JSON document after log noise" from CLI
// output, deep-merging a variant's settings over a driver's own, writing a small TOML document (for
// Codex's config.toml), and the number formats the original drivers used. Pure; no I/O.
import { posix } from "node:path";
import { ConfigError, messageOf, ToolError } from "../../core/errors.ts";
import { isRecord } from "../../wire/common.ts";
import type { AgentMetrics, DriverInput, Reported } from "./driver.ts";

export { isRecord };

/** POSIX path join: the paths are as the CLI sees them, which may be inside a Linux container. */
export const join = posix.join;

/** Every line that starts with `{` and parses as a JSON object; other lines (log noise) skipped. */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const v = JSON.parse(t) as unknown;
      if (isRecord(v)) out.push(v);
    } catch {
      // not JSON after all: noise
    }
  }
  return out;
}

/** The end index (exclusive) of the JSON object starting at `start`, by brace depth outside strings. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * JSON objects in `text` starting at a `{`, in order: the first one that parses from each candidate
 * brace, skipping noise before and after it (a Go json.Decoder reads one value and stops).
 */
export function jsonObjects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let from = text.indexOf("{");
  while (from >= 0) {
    const end = objectEnd(text, from);
    let next = from + 1;
    if (end > 0) {
      try {
        const v = JSON.parse(text.slice(from, end)) as unknown;
        if (isRecord(v)) {
          out.push(v);
          next = end;
        }
      } catch {
        // not a document here; try the next brace
      }
    }
    from = text.indexOf("{", next);
  }
  return out;
}

/** `base` with `over` merged in: objects merge key by key, anything else in `over` replaces. */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!over) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isRecord(b) && isRecord(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function tomlKey(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
}

function tomlValue(v: unknown, at: string): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return `[${v.map((x, i) => tomlValue(x, `${at}[${i}]`)).join(", ")}]`;
  if (isRecord(v))
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x, `${at}.${k}`)}`)
      .join(", ")} }`;
  throw new TypeError(`cannot write ${at} as TOML: ${v === null ? "null" : typeof v}`);
}

/** A TOML document: scalars and arrays as key = value, nested objects as [tables] (empty ones dropped). */
export function toToml(doc: Record<string, unknown>, prefix: string[] = []): string {
  const entries = Object.entries(doc);
  const lines = entries
    .filter(([, v]) => !isRecord(v))
    .map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v, [...prefix, k].join("."))}`);
  if (prefix.length > 0 && lines.length > 0) lines.unshift(`[${prefix.map(tomlKey).join(".")}]`);
  let out = lines.length > 0 ? `${lines.join("\n")}\n` : "";
  for (const [k, v] of entries) {
    if (!isRecord(v)) continue;
    const table = toToml(v, [...prefix, k]);
    if (table) out += `${out ? "\n" : ""}${table}`;
  }
  return out;
}

/** A float as Go's strconv.FormatFloat(f, 'f', -1, 64): shortest round-trip digits, never an exponent. */
export function shortFloat(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  const [mant = "", exp = "0"] = s.toLowerCase().split("e");
  const e = Number(exp);
  const [int = "", frac = ""] = mant.replace("-", "").split(".");
  const digits = int + frac;
  const point = int.length + e;
  const abs =
    point <= 0
      ? `0.${"0".repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + "0".repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return n < 0 ? `-${abs}` : abs;
}

/** A finite number, else 0 (output fields the CLI left out or mistyped count as 0, as in Go). */
export function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** Metrics before anything was read. */
export function emptyMetrics(reported: Reported): AgentMetrics {
  return {
    costUsd: null,
    turns: null,
    tokens: null,
    toolCalls: 0,
    toolErrors: 0,
    durationMs: null,
    failed: false,
    reported,
  };
}

/** Env every CLI gets: HOME and TMPDIR inside the fresh home, no colour codes in the output. */
export function baseEnv(home: string): Record<string, string> {
  return { HOME: home, TMPDIR: join(home, "tmp"), NO_COLOR: "1", LANG: "C.UTF-8" };
}

/** The CLI's output is not a run (e.g. `claude: no result message in stream output`); `metrics` holds what was read. */
export class AgentParseError extends ToolError {
  readonly metrics: AgentMetrics;
  constructor(message: string, metrics: AgentMetrics) {
    super(message, 4);
    this.name = "AgentParseError";
    this.metrics = metrics;
  }
}

/** Settings as an object: given as one, or parsed from JSON text; anything else is a ConfigError naming `what`. */
export function settingsObject(
  settings: Record<string, unknown> | string,
  what = "the variant's settings",
): Record<string, unknown> {
  let value: unknown = settings;
  if (typeof settings === "string") {
    try {
      value = JSON.parse(settings);
    } catch (e) {
      throw new ConfigError(`Cannot read settings ${what}: ${messageOf(e)}`, { cause: e });
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(`Cannot read settings ${what}: expected a JSON object`);
  return value as Record<string, unknown>;
}

/** The variant's settings of a driver input as an object, or undefined when it has none. */
export function variantSettings(input: DriverInput): Record<string, unknown> | undefined {
  return input.settings === undefined ? undefined : settingsObject(input.settings);
}
