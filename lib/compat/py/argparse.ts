// A small argparse-compatible command-line parser for the tools whose originals were Python argparse
// programs (idd-lint, gi-runlog): long options with unique-prefix abbreviation, `--opt=value`, one
// positional that is consumed by the first run of plain words, stray words and unknown options
// reported as "unrecognized arguments". It does not print anything; callers render ArgvError.

/** One option: `flags` like ["--quiet", "-q"]; `value` options take exactly one argument. */
export interface OptionDef {
  flags: readonly string[];
  dest: string;
  value?: boolean;
  choices?: readonly string[];
  /** Parse the value like Python's int(): optional sign, ASCII digits, single underscores. */
  int?: boolean;
}

/** The single positional of a parser, with argparse's nargs. */
export interface PositionalDef {
  dest: string;
  nargs: "1" | "?" | "*";
}

/** A bad command line; `message` reads like argparse's text after "error: ". */
export class ArgvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArgvError";
  }
}

export type ArgValue = string | boolean | number | bigint | string[] | undefined;

/** What parseArgv found: values by dest, the order options were seen, and (stopAtPositional) the rest. */
export interface Parsed {
  values: Record<string, ArgValue>;
  seen: string[];
  help: boolean;
  rest: string[];
}

const HELP: OptionDef = { flags: ["-h", "--help"], dest: "help" };

function findOption(options: readonly OptionDef[], arg: string): { def: OptionDef; inline?: string } | null {
  for (const def of options) if (def.flags.includes(arg)) return { def };
  const eq = arg.indexOf("=");
  if (eq > 0) {
    const head = arg.slice(0, eq);
    for (const def of options) if (def.flags.includes(head)) return { def, inline: arg.slice(eq + 1) };
  }
  if (!arg.startsWith("--")) return null;
  const head = eq > 0 ? arg.slice(0, eq) : arg;
  const hits: { def: OptionDef; flag: string }[] = [];
  for (const def of options) {
    for (const flag of def.flags)
      if (flag.startsWith("--") && flag.startsWith(head)) hits.push({ def, flag });
  }
  if (hits.length > 1) {
    throw new ArgvError(`ambiguous option: ${head} could match ${hits.map((h) => h.flag).join(", ")}`);
  }
  const hit = hits[0];
  if (!hit) return null;
  return eq > 0 ? { def: hit.def, inline: arg.slice(eq + 1) } : { def: hit.def };
}

/** argparse's classification: does this word look like an option ("O") or a value ("A")? */
function isOptionLike(arg: string, options: readonly OptionDef[]): boolean {
  if (!arg.startsWith("-") || arg === "-") return false;
  if (findOption(options, arg)) return true;
  if (/^-\d+$|^-\d*\.\d+$/.test(arg)) return false;
  if (arg.includes(" ")) return false;
  return true;
}

/** Python int(): surrounding whitespace, optional sign, digits with single underscores. */
export function parsePyInt(text: string): number | bigint | null {
  const t = text.trim();
  if (!/^[+-]?[0-9]+(?:_[0-9]+)*$/.test(t)) return null;
  const big = BigInt(t.replace(/_/g, ""));
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function coerce(def: OptionDef, raw: string): ArgValue {
  const name = def.flags.find((f) => f.startsWith("--")) ?? def.flags[0];
  if (def.choices && !def.choices.includes(raw)) {
    throw new ArgvError(
      `argument ${def.flags.join("/")}: invalid choice: '${raw}' (choose from ${def.choices.join(", ")})`,
    );
  }
  if (def.int) {
    const n = parsePyInt(raw);
    if (n === null) throw new ArgvError(`argument ${name}: invalid int value: '${raw}'`);
    return n;
  }
  return raw;
}

/**
 * Parses `argv` against `options` and at most one positional. With `stopAtPositional`, the first
 * plain word ends parsing: it becomes values[positional.dest] and everything after it is `rest`
 * (argparse subcommands). Throws ArgvError for anything argparse would reject with exit 2.
 */
export function parseArgv(
  argv: readonly string[],
  options: readonly OptionDef[],
  positional?: PositionalDef,
  opts: { stopAtPositional?: boolean } = {},
): Parsed {
  const all = [...options, HELP];
  const values: Record<string, ArgValue> = {};
  const seen: string[] = [];
  const extras: string[] = [];
  let positionalDone = false;
  let afterDashes = false;
  const kinds = argv.map((arg) => {
    if (afterDashes) return "A";
    if (arg === "--") {
      afterDashes = true;
      return "-";
    }
    return isOptionLike(arg, all) ? "O" : "A";
  });
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i]!;
    const kind = kinds[i];
    if (kind === "-") {
      i++;
      continue;
    }
    if (kind === "A") {
      let end = i;
      while (end < argv.length && kinds[end] === "A") end++;
      const run = argv.slice(i, end);
      if (opts.stopAtPositional && positional) {
        values[positional.dest] = run[0];
        return { values, seen, help: false, rest: argv.slice(i + 1) };
      }
      if (positional && !positionalDone) {
        positionalDone = true;
        const take = positional.nargs === "*" ? run.length : 1;
        values[positional.dest] = positional.nargs === "*" ? run.slice(0, take) : run[0];
        extras.push(...run.slice(take));
      } else {
        extras.push(...run);
      }
      i = end;
      continue;
    }
    const found = findOption(all, arg);
    if (!found) {
      extras.push(arg);
      i++;
      continue;
    }
    const { def, inline } = found;
    const flag = def.flags.find((f) => f.startsWith("--")) ?? def.flags[0]!;
    if (def === HELP) return { values, seen, help: true, rest: [] };
    seen.push(def.dest);
    if (!def.value) {
      if (inline !== undefined)
        throw new ArgvError(`argument ${flag}: ignored explicit argument '${inline}'`);
      values[def.dest] = true;
      i++;
      continue;
    }
    if (inline !== undefined) {
      values[def.dest] = coerce(def, inline);
      i++;
      continue;
    }
    if (kinds[i + 1] !== "A") throw new ArgvError(`argument ${def.flags.join("/")}: expected one argument`);
    values[def.dest] = coerce(def, argv[i + 1]!);
    i += 2;
  }
  if (positional && !positionalDone) {
    if (positional.nargs === "1")
      throw new ArgvError(`the following arguments are required: ${positional.dest}`);
    values[positional.dest] = positional.nargs === "*" ? [] : undefined;
  }
  if (extras.length > 0) throw new ArgvError(`unrecognized arguments: ${extras.join(" ")}`);
  return { values, seen, help: false, rest: [] };
}
