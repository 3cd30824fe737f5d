// The built-in price table (USD per million tokens), dated. Anthropic's rows are the table the
// pinned Claude Code (2.1.197, evals/clis) prices its own `total_cost_usd` with, read out of that
// binary on 2026-11-30, so a Claude trial's metered cost and the CLI's agree. OpenAI's and Google's
// rows are their published list prices as of the `asOf` date; models newer than that (and every
// model a gateway renames) are not in it: their cost is not measured until a --prices file names
// them (docs/suites.md, "Metrics"). A test checks this table against the schema.
import type { PriceEntry, PriceTable } from "./format.ts";

/** A model's names: its id, dated ids, and Bedrock's (`us.anthropic.<id>`, `anthropic.<id>-v1:0`). */
function anthropicNames(...ids: string[]): string[] {
  return ids.flatMap((b) => [b, `${b}-20*`, `*anthropic.${b}`, `*anthropic.${b}-20*`, `*anthropic.${b}-v*`]);
}

/** An Anthropic row: cache reads at 0.1x input, (5-minute) cache writes at 1.25x, as Claude Code prices them. */
function claude(ids: string[], input: number, output: number): PriceEntry {
  return {
    match: anthropicNames(...ids),
    input,
    output,
    cacheRead: input / 10,
    cacheWrite: input * 1.25,
    note: "Claude Code 2.1.197's own table",
  };
}

/** A list-price row of another vendor: its ids and dated ids. */
function listed(ids: string[], input: number, cacheRead: number, output: number, asOf: string): PriceEntry {
  return {
    match: ids.flatMap((b) => [b, `${b}-20*`]),
    input,
    output,
    cacheRead,
    asOf,
    note: "vendor list price",
  };
}

/** The table `--prices` extends (and replaces with `"defaults": false`). */
export const DEFAULT_PRICES: PriceTable = {
  version: 1,
  date: "2026-11-30",
  models: [
    claude(["claude-3-5-haiku"], 0.8, 4),
    claude(["claude-haiku-4-5"], 1, 5),
    claude(
      [
        "claude-3-5-sonnet",
        "claude-3-7-sonnet",
        "claude-sonnet-4",
        "claude-sonnet-4-0",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-sonnet-5",
      ],
      3,
      15,
    ),
    claude(["claude-opus-4", "claude-opus-4-0", "claude-opus-4-1"], 15, 75),
    claude(["claude-opus-4-5", "claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8"], 5, 25),
    claude(["claude-fable-5", "claude-mythos-5"], 10, 50),
    listed(["gpt-5"], 1.25, 0.125, 10, "2025-08-31"),
    listed(["gpt-5-mini"], 0.25, 0.025, 2, "2025-08-31"),
    listed(["gpt-5-nano"], 0.05, 0.005, 0.4, "2025-08-31"),
    listed(["gpt-4.1"], 2, 0.5, 8, "2025-08-31"),
    listed(["gpt-4.1-mini"], 0.4, 0.1, 1.6, "2025-08-31"),
    listed(["gpt-4.1-nano"], 0.1, 0.025, 0.4, "2025-08-31"),
    listed(["gpt-4o"], 2.5, 1.25, 10, "2025-08-31"),
    listed(["gpt-4o-mini"], 0.15, 0.075, 0.6, "2025-08-31"),
    listed(["o3"], 2, 0.5, 8, "2025-08-31"),
    listed(["o4-mini"], 1.1, 0.275, 4.4, "2025-08-31"),
    {
      ...listed(["gemini-2.5-pro"], 1.25, 0.31, 10, "2025-07-31"),
      longContext: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.625 },
    },
    listed(["gemini-2.5-flash"], 0.3, 0.075, 2.5, "2025-07-31"),
    listed(["gemini-2.5-flash-lite"], 0.1, 0.025, 0.4, "2025-07-31"),
  ],
};
