// A command line's flags checked against what the command declares, before citty parses them: citty
// gives node:util's parseArgs no `multiple` and no `strict`, so `--redact-pattern A --redact-pattern
// B` silently dropped A and a mistyped `--redact-patern A` was ignored. A repeatable() flag keeps
// every value in order; any other flag given twice, or not declared, is a usage error naming it and
// the closest declared one. Only a command that declares no args at all takes argv as is (grade runlog).
import { parseArgs } from "node:util";
import type { ArgDef, ArgsDef } from "citty";
import { UsageError } from "./errors.ts";
import { unknownFlag } from "./suggest.ts";

const REPEATABLE = new WeakSet<object>();

/** Marks a string flag as repeatable: every value is kept, in order, as a string[]. */
export function repeatable<T extends ArgDef & { type: "string" }>(def: T): T {
  REPEATABLE.add(def);
  return def;
}

/** True for a flag definition marked with repeatable(). */
export function isRepeatable(def: ArgDef): boolean {
  return REPEATABLE.has(def);
}

/** The values of a repeatable flag as the command receives them (none, one or many). */
export function flagValues(v: unknown): string[] {
  if (v === undefined || v === false) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

interface Declared {
  name: string;
  boolean: boolean;
  repeatable: boolean;
  alias: string[];
}

/** Every spelling citty accepts for a flag (name, camelCase, kebab-case, aliases) -> the flag. */
function spellings(argsDef: ArgsDef): Map<string, Declared> {
  const out = new Map<string, Declared>();
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") continue;
    const alias = "alias" in def && def.alias !== undefined ? [def.alias].flat() : [];
    const d = { name, boolean: def.type === "boolean", repeatable: REPEATABLE.has(def), alias };
    for (const s of [name, camel(name), kebab(name), ...alias]) out.set(s, d);
  }
  return out;
}

/** What a command line holds, and the first flag problem in it (undefined when it has none). */
export interface FlagScan {
  /** The values of each repeatable flag given, in order. */
  values: Map<string, string[]>;
  /** The words that are neither flags nor their values. */
  positionals: string[];
  /**
   * The words right after an undeclared flag given without `=`: most likely its value (`--ot y`), so
   * never taken for a misspelt subcommand.
   */
  strays?: Set<string>;
  problem?: UsageError;
}

/**
 * Reads `rawArgs` against `argsDef` (the same tokens citty's parser sees) without throwing. With
 * `argsDef` undefined (a command that declares nothing, a pass-through) only the words are read.
 */
export function scanFlags(
  argsDef: ArgsDef | undefined,
  rawArgs: readonly string[],
  command: string,
): FlagScan {
  const byName = spellings(argsDef ?? {});
  const values = new Map<string, string[]>();
  const seen = new Map<string, number>();
  let problem: UsageError | undefined;
  const given = (raw: string, d: Declared | undefined, value: string | undefined) => {
    if (!argsDef || problem) return;
    if (!d) {
      problem = new UsageError(unknownFlagOf(raw, byName, command));
      return;
    }
    const n = (seen.get(d.name) ?? 0) + 1;
    seen.set(d.name, n);
    if (d.repeatable) {
      if (value === undefined) problem = new UsageError(`Cannot accept --${d.name} without a value`);
      else values.set(d.name, [...(values.get(d.name) ?? []), value]);
    } else if (n > 1) {
      problem = new UsageError(`Cannot accept --${d.name} twice: it takes one value`);
    }
  };
  // citty drops every `--no-<flag>` before `--` and sets <flag> to false; only a boolean may be negated.
  const rest: string[] = [];
  for (const [i, arg] of rawArgs.entries()) {
    if (arg === "--") {
      rest.push(...rawArgs.slice(i));
      break;
    }
    if (arg.startsWith("--no-")) {
      const d = byName.get(arg.slice(5));
      given(arg, d?.boolean ? d : undefined, "false");
    } else rest.push(arg);
  }
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [s, d] of byName) options[s] = { type: d.boolean ? "boolean" : "string" };
  for (const [s, d] of byName)
    if (s.length === 1 && options[d.name]) (options[d.name] as { short?: string }).short = s;
  const { tokens } = parseArgs({ args: rest, options, strict: false, allowPositionals: true, tokens: true });
  const positionals: string[] = [];
  const strays = new Set<string>();
  let afterUnknown = false;
  for (const t of tokens) {
    if (t.kind === "option") given(t.rawName, byName.get(t.name), t.value);
    else if (t.kind === "positional") {
      positionals.push(t.value);
      if (afterUnknown) strays.add(t.value);
    }
    afterUnknown = t.kind === "option" && !byName.has(t.name) && t.value === undefined;
  }
  return problem ? { values, positionals, strays, problem } : { values, positionals };
}

/**
 * Checks `rawArgs` against `argsDef` and returns the values of each repeatable flag given, in order,
 * and the words that are neither flags nor their values. Throws UsageError for a repeated
 * single-value flag, an undeclared flag, or a repeatable flag without a value.
 */
export function checkFlags(
  argsDef: ArgsDef | undefined,
  rawArgs: readonly string[],
  command: string,
): { values: Map<string, string[]>; positionals: string[] } {
  const { values, positionals, problem } = scanFlags(argsDef, rawArgs, command);
  if (problem) throw problem;
  return { values, positionals };
}

/** The refusal of an undeclared flag, naming the closest spelling the command accepts. */
function unknownFlagOf(raw: string, byName: Map<string, Declared>, command: string): string {
  // Every spelling the command accepts, shown as its help names it.
  const shown = new Map<string, string>([["help", "--help"]]);
  for (const [s, d] of byName) {
    shown.set(s, s.length === 1 ? `-${s}` : d.alias.includes(s) ? `--${s}` : `--${d.name}`);
    if (d.boolean) shown.set(`no-${d.name}`, `--no-${d.name}`);
  }
  const names = [...new Set([...byName.values()].map((d) => `--${d.name}`))];
  return unknownFlag(raw, shown, names, command);
}

/** What a numeric flag accepts. */
export interface NumberRule {
  /** Whole numbers only (the default). */
  integer?: boolean;
  /** Smallest accepted value. */
  min?: number;
  /** Largest accepted value. */
  max?: number;
}

/**
 * THE numeric flag parser: every tool reads numbers through it, so every refusal reads the same:
 * `--jobs must be an integer of at least 1, got "0"`. An absent or empty value gives `fallback`.
 */
export function numberFlag(flag: string, value: unknown, rule: NumberRule & { fallback: number }): number;
export function numberFlag(flag: string, value: unknown, rule?: NumberRule): number | undefined;
export function numberFlag(
  flag: string,
  value: unknown,
  rule: NumberRule & { fallback?: number } = {},
): number | undefined {
  if (value === undefined || value === "" || value === false) return rule.fallback;
  const integer = rule.integer ?? true;
  const text = String(value).trim();
  const n = Number(text);
  const ok =
    text !== "" &&
    (integer ? /^[-+]?\d+$/.test(text) && Number.isSafeInteger(n) : Number.isFinite(n)) &&
    (rule.min === undefined || n >= rule.min) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok)
    throw new UsageError(
      `${flag} must be ${describeRule(integer, rule)}, got ${JSON.stringify(String(value))}`,
    );
  return n;
}

function describeRule(integer: boolean, rule: NumberRule): string {
  const what = integer ? "an integer" : "a number";
  if (rule.min !== undefined && rule.max !== undefined) return `${what} from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined) return `${what} of at least ${rule.min}`;
  if (rule.max !== undefined) return `${what} of at most ${rule.max}`;
  return what;
}
