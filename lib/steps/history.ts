// The judge history file (`--history`): JSON Lines, one line per judged pair, appended by
// `eval-steps judge` and read by `eval-steps harvest --select judge-loss` (a pair whose candidate the
// judge scored below the control by more than --judge-loss) and by the judge itself (ids already
// graded are skipped). Only successful gradings are written: a pair whose judge call failed stays
// ungraded, so the next run tries it again. This module owns the format, reading and appending; it
// does not call a judge (lib/steps/judge.ts does). The original halo eval's history lines
// (`{time, kind, online: {...}}`, one aggregate reading per run) are read too and set aside: they
// carry no per-pair score, so they name no judge loss (readHistory reports how many were ignored).
import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { withFileLock } from "../core/fsx.ts";
import { parseJsonl } from "../core/jsonl.ts";

const score = z.number().min(0).max(1);

/** One arm's grade: a score in [0, 1] (1 = the rubric fully met) and the judge's short reason. */
export const ArmGrade = z.looseObject({
  score,
  reason: z.string().optional().describe("the judge's one-line reason, clipped to 500 characters"),
});
export type ArmGrade = z.infer<typeof ArmGrade>;

/** One judged pair: which pair, which judge and rubric, both arms' grades and their difference. */
export const HistoryEntry = z.looseObject({
  version: z.literal(1),
  id: z.string().min(1).describe("the pair id in the pair store"),
  experiment: z.string().min(1),
  time: z.iso.datetime({ offset: true }).describe("when the pair was judged (RFC 3339)"),
  judge: z.looseObject({
    model: z.string().min(1).describe("the judge model as given to --judge-model"),
    rubric: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .describe("sha256 of the rubric text, so histories from different rubrics are told apart"),
  }),
  control: ArmGrade,
  candidate: ArmGrade,
  delta: z.number().min(-1).max(1).describe("candidate.score - control.score (negative: candidate lost)"),
  order: z
    .enum(["control-first", "candidate-first"])
    .describe("which answer the judge saw first (seeded per pair, against position bias)"),
  seed: z.number().int().describe("the --seed of the judge run"),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/**
 * A line of the original's scorecard history: an offline suite run or an online judge reading, with
 * aggregate scores and the pair ids it graded, but no score per pair.
 */
export const OriginalHistoryLine = z.looseObject({
  time: z.string().min(1),
  kind: z.string().min(1).describe('"online" (a judge reading) or "offline" (a suite run)'),
  online: z
    .looseObject({
      experiment: z.string(),
      pairIds: z.array(z.string()).nullable().optional(),
    })
    .optional(),
});
export type OriginalHistoryLine = z.infer<typeof OriginalHistoryLine>;

/** An original line has a `kind` and no `version`; ours always carry version 1. */
function isOriginal(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !("version" in v) && "kind" in v;
}

/** One history line of either generation, each checked by its own schema (so a bad line of ours reads as ours). */
const HistoryLine = z.unknown().superRefine((v, ctx) => {
  const r = (isOriginal(v) ? OriginalHistoryLine : HistoryEntry).safeParse(v);
  if (!r.success)
    for (const i of r.error.issues) ctx.addIssue({ code: "custom", message: i.message, path: i.path });
});

/** A history file's lines: ours (per-pair grades) and the original's (aggregate readings, set aside). */
export interface HistoryLines {
  entries: HistoryEntry[];
  original: OriginalHistoryLine[];
}

/** Parses history JSONL of either generation; ConfigError naming the file, line and field. */
export function readHistory(text: string, path: string): HistoryLines {
  const rows = parseJsonl<unknown>(text, path, HistoryLine, "history");
  const out: HistoryLines = { entries: [], original: [] };
  for (const row of rows)
    if (isOriginal(row)) out.original.push(row as OriginalHistoryLine);
    else out.entries.push(row as HistoryEntry);
  return out;
}

/** The stderr note for original lines that were ignored, or undefined when there were none. */
export function originalNote(path: string, original: readonly OriginalHistoryLine[]): string | undefined {
  if (original.length === 0) return undefined;
  const kinds = [...new Set(original.map((l) => l.kind))].sort().join("/");
  return `note: history "${path}": ${original.length} line(s) of the original's history (kind ${kinds}) carry no per-pair score; ignored`;
}

/** The JSON Schema committed as schemas/step-history.schema.json. */
export function historyJsonSchema(): unknown {
  return z.toJSONSchema(HistoryEntry);
}

/** How far the judge put the candidate below the control (control - candidate; > 0 means a loss). */
export function judgeLoss(entry: HistoryEntry): number {
  return entry.control.score - entry.candidate.score;
}

/** Parses history JSONL text (blank lines skipped) to our per-pair entries; the original's lines are skipped. */
export function parseHistory(text: string, path: string): HistoryEntry[] {
  return readHistory(text, path).entries;
}

/** Reads a history file of either generation; a missing file is empty (the first judge run creates it). */
export function loadHistoryLines(path: string): HistoryLines {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], original: [] };
    throw new ConfigError(`Cannot read history "${path}": ${(error as Error).message}`, { cause: error });
  }
  return readHistory(text, path);
}

/** Reads a history file's per-pair entries (the original's lines skipped); a missing file is empty. */
export function loadHistory(path: string): HistoryEntry[] {
  return loadHistoryLines(path).entries;
}

/** The pair ids already judged for `experiment` (any judge, any rubric: a pair is graded once). */
export function gradedIds(entries: readonly HistoryEntry[], experiment: string): Set<string> {
  return new Set(entries.filter((e) => e.experiment === experiment).map((e) => e.id));
}

/** Serialises one entry as its JSONL line (validated first: a bad entry never reaches the file). */
export function historyLine(entry: HistoryEntry): string {
  HistoryEntry.parse(entry);
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Appends entries under a lock (one write per entry, each a whole line, so concurrent judges never
 * interleave a line); the file is created with mode 0600 because reasons may quote the request.
 */
export async function appendHistory(path: string, entries: readonly HistoryEntry[]): Promise<void> {
  const lines = entries.map(historyLine);
  await withFileLock(`${path}.lock`, () => {
    for (const line of lines) appendFileSync(path, line, { mode: 0o600 });
  });
}
