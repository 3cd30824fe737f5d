// The suite history: the original's line format round trip, appends that keep every line (two at
// once too), the original's online lines read and left out of the trend, and bad files refused with
// one line naming the file, the line and the field, nothing written.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import {
  appendHistory,
  goTime,
  historyJsonSchema,
  loadHistory,
  offlineLine,
  renderTrendMarkdown,
  type TrendRow,
  trendOf,
} from "../../../lib/suite/history.ts";
import { buildScorecard, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { trialOf } from "../_support.ts";

const trial = (variant: string, task: string, pass: boolean): Trial =>
  trialOf(variant, task, { pass, costUSD: 0.1, turns: 1, wallMs: 1000, tokens: 10 });
const SC = buildScorecard("s", "a", ["a", "b"], [trial("a", "x", true), trial("b", "x", false)]);

/** The original's online line (halos internal/eval/online.go HistoryEntry with an OnlineResult). */
const ONLINE =
  '{"time":"2026-11-30T10:00:00.123456789Z","kind":"online","online":{"experiment":"e","rubric":"quality@1","judgeModel":"m","pairs":3,"graded":3,"judgeErrors":0,"controlScore":0.5,"candidateScore":0.6,"delta":{"mean":0.1,"ciLo":0,"ciHi":0.2,"baseline":0.5},"winRate":0.6,"controlVariant":"control","candidateVariant":"candidate","pairIds":["p1","p2","p3"]}}';

describe("history lines", () => {
  test("goTime is Go's RFC 3339: UTC, trailing zeros of the fraction dropped", () => {
    expect(
      ["2026-12-01T16:00:00.000Z", "2026-12-01T16:00:00.120Z", "2026-12-01T16:00:00.123Z"].map((t) =>
        goTime(new Date(t)),
      ),
    ).toEqual(["2026-12-01T16:00:00Z", "2026-12-01T16:00:00.12Z", "2026-12-01T16:00:00.123Z"]);
  });

  test("round trip: appended lines read back as written, the online one kept, the trend offline only", async () => {
    using dir = tempDir("proctor-history");
    const path = join(dir.path, "h.jsonl");
    writeFileSync(path, ONLINE); // no newline at the end: the append adds one first
    const first = offlineLine(SC, new Date("2026-12-01T10:00:00Z"));
    const second = offlineLine(
      { ...SC, gate: { verdict: "hold", reasons: ["r"] } },
      new Date("2026-12-01T11:00:00.5Z"),
    );
    await appendHistory(path, first);
    const all = await appendHistory(path, second);
    const text = readFileSync(path, "utf8");
    expect({
      returned: all,
      read: loadHistory(path),
      lines: text.split("\n").length,
      firstKeys: Object.keys(JSON.parse(text.split("\n")[1]!)),
      trend: trendOf(all, "s"),
      other: trendOf(all, "another suite"),
    }).toEqual({
      returned: [JSON.parse(ONLINE), first, second],
      read: [JSON.parse(ONLINE), first, second],
      lines: 4,
      firstKeys: ["time", "kind", "suite", "variants", "version"],
      trend: [
        { time: "2026-12-01T10:00:00Z", pass1: { a: 1, b: 0 } },
        { time: "2026-12-01T11:00:00.5Z", gate: "hold", pass1: { a: 1, b: 0 } },
      ],
      other: [],
    });
  });

  test("two runs appending at once both land", async () => {
    using dir = tempDir("proctor-history");
    const path = join(dir.path, "h.jsonl");
    const lines = [1, 2, 3, 4].map((h) => offlineLine(SC, new Date(Date.UTC(2026, 11, 1, h))));
    await Promise.all(lines.map((l) => appendHistory(path, l)));
    expect(
      loadHistory(path)
        .map((l) => l.time)
        .sort(),
    ).toEqual(lines.map((l) => l.time).sort());
  });

  test("the trend as Markdown: a row per run, a dash where a variant did not run", () => {
    const rows: TrendRow[] = [
      { time: "T1", pass1: { a: 1 } },
      { time: "T2", gate: "ship", pass1: { a: 1, b: 0.5 } },
    ];
    expect(renderTrendMarkdown(rows, ["a", "b"])).toEqual(
      "\n## Trend (last 2 runs)\n\n| Run (UTC) | Gate | a pass@1 | b pass@1 |\n|---|---|---|---|\n| T1 | – | 100.0% | – |\n| T2 | ship | 100.0% | 50.0% |\n",
    );
    expect(renderTrendMarkdown([], ["a"])).toEqual("");
  });

  test("the trend rounds as the scorecard does (Go's %.1f: a tie goes to even)", () => {
    // 1/16 = 6.25%: the scorecard and the HTML trend say 6.2%, and so must the Markdown trend.
    expect(renderTrendMarkdown([{ time: "T1", pass1: { a: 1 / 16, b: 3 / 16 } }], ["a", "b"])).toEqual(
      "\n## Trend (last 1 runs)\n\n| Run (UTC) | Gate | a pass@1 | b pass@1 |\n|---|---|---|---|\n| T1 | – | 6.2% | 18.8% |\n",
    );
  });

  const bad = [
    { name: "not JSON", text: `${ONLINE}\n{"time": oops}\n`, message: "line 2: " },
    {
      name: "no time",
      text: '{"kind":"offline","suite":"s"}\n',
      message: "line 1: Invalid input: expected string, received undefined at time",
    },
    {
      name: "a time that is no time",
      text: '{"time":"yesterday","kind":"offline"}\n',
      message: "line 1: Invalid ISO datetime at time",
    },
    {
      name: "an unknown kind",
      text: '{"time":"2026-12-01T10:00:00Z","kind":"batch"}\n',
      message: 'line 1: Invalid option: expected one of "offline"|"online" at kind',
    },
    {
      name: "a bad gate verdict",
      text: '{"time":"2026-12-01T10:00:00Z","kind":"offline","gate":{"verdict":"maybe","reasons":[]}}\n',
      message: 'line 1: Invalid option: expected one of "ship"|"hold"|"block" at gate.verdict',
    },
  ];
  test.each(bad)("a bad history is refused, nothing appended: $name", async ({ text, message }) => {
    using dir = tempDir("proctor-history");
    const path = join(dir.path, "h.jsonl");
    writeFileSync(path, text);
    let caught: unknown;
    try {
      await appendHistory(path, offlineLine(SC, new Date()));
    } catch (error) {
      caught = error;
    }
    expect({
      isConfig: caught instanceof ConfigError,
      names:
        (caught as Error).message.startsWith(`Cannot `) &&
        (caught as Error).message.includes(`history "${path}": ${message}`),
      untouched: readFileSync(path, "utf8"),
    }).toEqual({ isConfig: true, names: true, untouched: text });
  });

  test("a missing history is empty", () => {
    expect(loadHistory("/nonexistent/h.jsonl")).toEqual([]);
  });

  test("schemas/suite-history.schema.json is the generated schema", () => {
    const committed = readFileSync(join(REPO_ROOT, "schemas", "suite-history.schema.json"), "utf8");
    expect(committed).toEqual(`${JSON.stringify(historyJsonSchema(), null, 2)}\n`);
  });
});
