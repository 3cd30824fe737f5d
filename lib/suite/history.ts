// The suite history (`agent-eval suite --history FILE`): JSON Lines, one line per run, the original
// halo eval's line format ({time, kind: "offline", suite, gate, variants}; its online readings,
// kind "online", are read and kept but carry no suite trend). Appended atomically under a lock (the
// whole file rewritten through a temp file and a rename), and read back as a trend of the last runs.
import { z } from "zod";
import { withFileLock, writeFileAtomic } from "../core/fsx.ts";
import { parseJsonl } from "../core/jsonl.ts";
import { pct } from "../report/format.ts";
import { mdCell } from "../report/markdown.ts";
import { DATA, readInputIfAny } from "./input.ts";
import { GateResult, type Scorecard } from "./scorecard/schema.ts";

/** One history line; the original's fields, then our `version`. */
export const HistoryLine = z.looseObject({
  time: z.iso.datetime({ offset: true }).describe("when the run finished, RFC 3339 (UTC)"),
  kind: z
    .enum(["offline", "online"])
    .describe("offline: a suite run; online: the original's judged shadow pairs"),
  suite: z.string().optional(),
  gate: GateResult.optional(),
  // The trend reads a row's name and pass@1; the rest is the scorecard's row as it was written
  // (schemas/scorecard.schema.json), kept as is so the history outlives changes to that format.
  variants: z
    .array(z.looseObject({ name: z.string().min(1), pass1: z.number().min(0).max(1) }))
    .optional()
    .describe("the scorecard's variant rows (trials left out)"),
  online: z.looseObject({}).optional().describe("the original's online reading, kept as is"),
  version: z.literal(1).optional(),
});
export type HistoryLine = z.infer<typeof HistoryLine>;

/** The JSON Schema committed as schemas/suite-history.schema.json. */
export function historyJsonSchema(): unknown {
  return z.toJSONSchema(HistoryLine);
}

/** A history file's text (regular, capped, not a link: CI often restores it from a cache); a missing one is empty. */
function readHistory(path: string): string {
  return readInputIfAny(path, "history", DATA) ?? "";
}

const parseHistory = (text: string, path: string) =>
  parseJsonl<HistoryLine>(text, path, HistoryLine, "history");

/** Reads a history file; a missing one is empty. ConfigError naming the file, the line and the field. */
export function loadHistory(path: string): HistoryLine[] {
  return parseHistory(readHistory(path), path);
}

/** RFC 3339 as Go's time.Time marshals it: UTC, fractional seconds without trailing zeros. */
export function goTime(at: Date): string {
  return at.toISOString().replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : "Z"));
}

/** The scorecard as one offline history line (its trials left out, as the original's). */
export function offlineLine(sc: Scorecard, at: Date): HistoryLine {
  return {
    time: goTime(at),
    kind: "offline",
    suite: sc.suite,
    ...(sc.gate ? { gate: sc.gate } : {}),
    variants: sc.variants,
    version: 1,
  };
}

/**
 * Appends `line` to the history at `path`. The existing lines are checked first (a bad one is a
 * ConfigError and nothing is written), then the file is rewritten atomically, holding `<path>.lock`
 * so two runs appending at once both land. Returns every line, the new one last.
 */
export async function appendHistory(path: string, line: HistoryLine): Promise<HistoryLine[]> {
  return withFileLock(`${path}.lock`, () => {
    const old = readHistory(path);
    const lines = parseHistory(old, path);
    const sep = old === "" || old.endsWith("\n") ? "" : "\n";
    writeFileAtomic(path, `${old}${sep}${JSON.stringify(line)}\n`);
    return [...lines, line];
  });
}

/** One run in a trend: when, its gate verdict if gated, pass@1 by variant name. */
export interface TrendRow {
  time: string;
  gate?: string;
  pass1: Record<string, number>;
}

/** The last `n` offline runs of `suite`, oldest first (online lines and other suites left out). */
export function trendOf(lines: readonly HistoryLine[], suite: string, n = 10): TrendRow[] {
  return lines
    .filter((l) => l.kind === "offline" && l.suite === suite)
    .slice(-n)
    .map((l) => ({
      time: l.time,
      ...(l.gate ? { gate: l.gate.verdict } : {}),
      pass1: Object.fromEntries((l.variants ?? []).map((v) => [v.name, v.pass1])),
    }));
}

// The scorecard's own percentage (Go's %.1f, ties to even), so a trend row reads as its scorecard does.
const pctOrDash = (x: number | undefined) => (x === undefined ? "–" : pct(x));

/** The trend as Markdown: a row per run, pass@1 of each of `variants` (the current run's). */
export function renderTrendMarkdown(rows: readonly TrendRow[], variants: readonly string[]): string {
  if (rows.length === 0) return "";
  let out = `\n## Trend (last ${rows.length} runs)\n\n| Run (UTC) | Gate | ${variants.map((v) => `${mdCell(v)} pass@1`).join(" | ")} |\n`;
  out += `|${"---|".repeat(variants.length + 2)}\n`;
  for (const r of rows)
    out += `| ${mdCell(r.time)} | ${mdCell(r.gate ?? "–")} | ${variants.map((v) => pctOrDash(r.pass1[v])).join(" | ")} |\n`;
  return out;
}
