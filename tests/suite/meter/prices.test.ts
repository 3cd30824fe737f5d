// The price table: the built-in one is valid and dated, a model finds the most specific entry (the
// user's file first, the built-in table after unless it says `"defaults": false`), cost follows cache
// and long-context rates, a bad file is one line naming the file and the field, and the committed
// JSON Schema is the generated one.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import {
  costOf,
  DEFAULT_PRICE_BOOK,
  loadPrices,
  PriceTable,
  priceOf,
  pricesJsonSchema,
} from "../../../lib/suite/meter/prices.ts";
import { DEFAULT_PRICES } from "../../../lib/suite/meter/prices-default.ts";
import { tempDir } from "../../support/tmp.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");
const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  reasoning: 0,
});

test("schemas/prices.schema.json is the generated schema", () => {
  const committed = readFileSync(join(REPO, "schemas", "prices.schema.json"), "utf8");
  expect(committed).toEqual(`${JSON.stringify(pricesJsonSchema(), null, 2)}\n`);
});

test("the built-in table is a valid, dated price table", () => {
  expect(PriceTable.safeParse(DEFAULT_PRICES).success).toBe(true);
  expect(DEFAULT_PRICE_BOOK.label).toBe(`default ${DEFAULT_PRICES.date}`);
});

describe("priceOf: the most specific entry of the first table that names the model", () => {
  const rates = (model: string) => {
    const e = priceOf(DEFAULT_PRICE_BOOK, model);
    return e && { input: e.input, output: e.output };
  };
  test.each([
    { model: "claude-opus-4-8", want: { input: 5, output: 25 } },
    { model: "claude-opus-4-1-20250805", want: { input: 15, output: 75 } },
    { model: "claude-opus-4-20250514", want: { input: 15, output: 75 } },
    { model: "claude-sonnet-4-5-20250929", want: { input: 3, output: 15 } },
    { model: "us.anthropic.claude-opus-4-8", want: { input: 5, output: 25 } },
    { model: "anthropic.claude-haiku-4-5-20251001-v1:0", want: { input: 1, output: 5 } },
    { model: "gpt-5", want: { input: 1.25, output: 10 } },
    { model: "gpt-5-2025-08-07", want: { input: 1.25, output: 10 } },
    { model: "gpt-5-mini", want: { input: 0.25, output: 2 } },
    { model: "gemini-2.5-pro", want: { input: 1.25, output: 10 } },
    // Not in the table: not measured (a future Opus is not Opus 4's price).
    { model: "claude-opus-4-9", want: undefined },
    { model: "gpt-5.5", want: undefined },
    { model: "mock-model", want: undefined },
  ])("$model", ({ model, want }) => {
    expect(rates(model)).toEqual(want);
  });

  test("a --prices file answers first; the built-in table the rest, unless defaults is false", () => {
    using dir = tempDir("prices");
    const file = join(dir.path, "prices.json");
    const own = {
      version: 1,
      date: "2026-12-01",
      models: [{ match: ["claude-*", "mock-*"], input: 1, output: 2 }],
    };
    writeFileSync(file, JSON.stringify(own));
    const book = loadPrices(file);
    writeFileSync(file, JSON.stringify({ ...own, defaults: false }));
    const only = loadPrices(file);
    expect({
      label: book.label,
      opus: priceOf(book, "claude-opus-4-8")?.input,
      mock: priceOf(book, "mock-model")?.input,
      gpt: priceOf(book, "gpt-5")?.input,
      onlyLabel: only.label,
      onlyGpt: priceOf(only, "gpt-5"),
    }).toEqual({
      label: `${file} 2026-12-01, default ${DEFAULT_PRICES.date}`,
      opus: 1,
      mock: 1,
      gpt: 1.25,
      onlyLabel: `${file} 2026-12-01`,
      onlyGpt: undefined,
    });
  });
});

describe("costOf", () => {
  const opus = priceOf(DEFAULT_PRICE_BOOK, "claude-opus-4-8")!;
  const pro = priceOf(DEFAULT_PRICE_BOOK, "gemini-2.5-pro")!;
  test.each([
    // Claude Code's own figure for 200 in / 20 out on Opus 4.8 (tests/fixtures/agent/claude-tool.stdout).
    { name: "fresh input and output", entry: opus, t: tokens(200, 20), usd: 0.0015 },
    {
      name: "cache reads at 0.1x, writes at 1.25x",
      entry: opus,
      t: tokens(1_000_000, 0, 600_000, 400_000),
      usd: 0.3 + 2.5,
    },
    { name: "Gemini 2.5 Pro under 200k tokens", entry: pro, t: tokens(200_000, 1000), usd: 0.25 + 0.01 },
    {
      name: "Gemini 2.5 Pro past 200k: the long-context rates",
      entry: pro,
      t: tokens(200_001, 1000),
      usd: 0.5000025 + 0.015,
    },
  ])("$name", ({ entry, t, usd }) => {
    expect(costOf(entry, t)).toBeCloseTo(usd, 12);
  });
});

describe("loadPrices refuses a bad file in one line naming it and the field", () => {
  const cases = [
    {
      name: "no version",
      text: '{"date":"2026-01-01","models":[]}',
      why: "Invalid input: expected 1 at version",
    },
    {
      name: "a bad date",
      text: '{"version":1,"date":"Jan 1","models":[]}',
      why: "expected a date YYYY-MM-DD at date",
    },
    {
      name: "a negative price",
      text: '{"version":1,"date":"2026-01-01","models":[{"match":["m"],"input":-1,"output":1}]}',
      why: "Too small: expected number to be >=0 at models.0.input",
    },
    {
      name: "an unknown key",
      text: '{"version":1,"date":"2026-01-01","models":[{"match":["m"],"input":1,"output":1,"inputt":2}]}',
      why: 'Unrecognized key: "inputt" at models.0',
    },
    // The parser's own words differ between runtimes: only the start is pinned.
    { name: "not JSON", text: "{", why: undefined },
  ];
  test.each(cases)("$name", ({ text, why }) => {
    using dir = tempDir("prices");
    const file = join(dir.path, "p.json");
    writeFileSync(file, text);
    let error: unknown;
    try {
      loadPrices(file);
    } catch (e) {
      error = e;
    }
    const message = (error as Error).message;
    const prefix = `Cannot load price table "${file}": `;
    expect({
      config: error instanceof ConfigError,
      lines: message.split("\n").length,
      message: why === undefined ? message.startsWith(prefix) : message,
    }).toEqual({ config: true, lines: 1, message: why === undefined ? true : `${prefix}${why}` });
  });

  test("a missing file", () => {
    expect(() => loadPrices("/nonexistent/prices.json")).toThrow(
      'Cannot read price table "/nonexistent/prices.json"',
    );
  });
});
