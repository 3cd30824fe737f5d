// The price table the trial's meter turns tokens into dollars with (`agent-eval suite --prices FILE`,
// schemas/prices.schema.json): USD per million tokens for fresh input, output, cache reads and cache
// writes, per model name or glob, with an optional long-context rate (a request whose input passes
// `above` tokens is priced at it, as Gemini 2.5 Pro is). The user's file is consulted first; the
// built-in table (prices-default.ts) answers the models it does not name unless it says
// `"defaults": false`. A model no table names has no price: its cost is not measured, never $0.
import { z } from "zod";
import { ConfigError } from "../../core/errors.ts";
import { firstIssue } from "../../core/jsonl.ts";
import type { Tokens } from "../../wire/reading.ts";
import { CONFIG, readInput } from "../input.ts";
import { type PriceEntry, PriceTable } from "./format.ts";
import { DEFAULT_PRICES } from "./prices-default.ts";

export { PriceEntry, PriceTable } from "./format.ts";

/** The tables a run prices with, most trusted first, and the label trials carry. */
export interface Prices {
  tables: readonly PriceTable[];
  /** `default <date>`, or `<file> <date>` (+ `, default <date>`), as the trial's meter names it. */
  label: string;
}

/** The built-in table alone. */
export const DEFAULT_PRICE_BOOK: Prices = {
  tables: [DEFAULT_PRICES],
  label: `default ${DEFAULT_PRICES.date}`,
};

/** Reads a --prices file; one line naming the file and the field when it is not a price table. */
export function loadPrices(path: string, exitCode?: number): Prices {
  const opts = { ...CONFIG, ...(exitCode !== undefined ? { exitCode } : {}) };
  let data: unknown;
  try {
    data = JSON.parse(readInput(path, "price table", opts));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Cannot load price table "${path}": ${(error as Error).message}`, { cause: error });
  }
  const r = PriceTable.safeParse(data);
  if (!r.success) throw new ConfigError(`Cannot load price table "${path}": ${firstIssue(r.error)}`);
  const own = `${path} ${r.data.date}`;
  return r.data.defaults === false
    ? { tables: [r.data], label: own }
    : { tables: [r.data, DEFAULT_PRICES], label: `${own}, ${DEFAULT_PRICE_BOOK.label}` };
}

function globRe(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`);
}

/** How specific a pattern is: its literal characters (an exact name beats any glob of the same length). */
function specificity(pattern: string): number {
  const literal = pattern.replaceAll("*", "").length;
  return pattern.includes("*") ? literal * 2 : literal * 2 + 1;
}

/** The entry pricing `model`: the first table that names it, its most specific pattern; undefined when none does. */
export function priceOf(prices: Prices, model: string): PriceEntry | undefined {
  for (const table of prices.tables) {
    let best: { entry: PriceEntry; score: number } | undefined;
    for (const entry of table.models)
      for (const pattern of entry.match)
        if (globRe(pattern).test(model)) {
          const score = specificity(pattern);
          if (!best || score > best.score) best = { entry, score };
        }
    if (best) return best.entry;
  }
  return undefined;
}

/** What one reply's tokens cost at `entry`'s rates (its long-context rates past their threshold). */
export function costOf(entry: PriceEntry, t: Tokens): number {
  const r = entry.longContext && t.input > entry.longContext.above ? entry.longContext : entry;
  const fresh = Math.max(0, t.input - t.cacheRead - t.cacheWrite);
  const dollars =
    fresh * r.input +
    t.cacheRead * (r.cacheRead ?? r.input) +
    t.cacheWrite * (r.cacheWrite ?? r.input) +
    t.output * r.output;
  return dollars / 1_000_000;
}

/** The JSON Schema committed as schemas/prices.schema.json. */
export function pricesJsonSchema(): unknown {
  return z.toJSONSchema(PriceTable);
}
