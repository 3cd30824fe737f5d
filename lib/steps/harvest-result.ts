// What a harvest hands back. The counts are known at once; the previews and the written paths grow
// with the case count, so they are never held: each is remade on demand from the chosen step the
// selection keeps in the harvest's sealed spill (lib/steps/harvest-spill.ts). `collectResult` gives
// the whole in-memory HarvestResult (eval-mcp's preview, tests); `resultChunks` gives the CLI's stdout
// a chunk at a time, byte for byte what printing the collected result gave.
import { join, resolve } from "node:path";
import type { SelectReason, StepCase } from "./case.ts";

/** What a case looks like in the preview: provenance and expected tool names, nothing else. */
export interface CasePreview {
  id: string;
  reasons: SelectReason[];
  expectedTools: string[];
  expectedFrom: "production" | "control";
  provenance: StepCase["provenance"];
}

/** The outcome: counts, the selection preview and (unless dry-run) the files written. */
export interface HarvestResult {
  experiment: string;
  dryRun: boolean;
  rows: number;
  steps: number;
  skippedInvalidExpected: number;
  cases: CasePreview[];
  written: string[];
}

/** The outcome read lazily: the previews are read back one at a time; dispose to drop the spill. */
export interface HarvestRun extends Disposable {
  experiment: string;
  dryRun: boolean;
  rows: number;
  steps: number;
  skippedInvalidExpected: number;
  /** How many cases were selected (and, unless dry-run, written: one file each). */
  count: number;
  cases(): Iterable<CasePreview>;
  written(): Iterable<string>;
}

/** A lazy outcome over `count` previews that `preview(k)` remakes; `out` is where they were written. */
export function lazyResult(
  counts: Omit<HarvestRun, "count" | "cases" | "written" | typeof Symbol.dispose>,
  count: number,
  preview: (k: number) => CasePreview,
  out: string | undefined,
  close: () => void,
): HarvestRun {
  function* cases() {
    for (let k = 0; k < count; k++) yield preview(k);
  }
  function* written() {
    if (counts.dryRun || out === undefined) return;
    // The name publishCases gave each file (lib/steps/harvest-files.ts): the case id, in case order.
    const abs = resolve(out);
    for (const c of cases()) yield join(abs, `${c.id}.json`);
  }
  return { ...counts, count, cases, written, [Symbol.dispose]: close };
}

/** The whole outcome in memory (its size grows with the case count). */
export function collectResult(r: HarvestRun): HarvestResult {
  return {
    experiment: r.experiment,
    dryRun: r.dryRun,
    rows: r.rows,
    steps: r.steps,
    skippedInvalidExpected: r.skippedInvalidExpected,
    cases: [...r.cases()],
    written: [...r.written()],
  };
}

/** One preview as the text output's line. */
export function previewLine(c: CasePreview): string {
  return `${c.id}\tdepth ${c.provenance.depth}\t${c.reasons.join(",")}\texpected ${c.expectedTools.join(",") || "(end turn)"} from ${c.expectedFrom}\n`;
}

/** Chunks of about this many characters reach stdout (a write per case would cost a syscall each). */
const CHUNK = 1 << 16;

/**
 * The CLI's output in chunks: text (a line per case) or JSON (`JSON.stringify` of the collected
 * result and a newline), equal byte for byte to rendering collectResult(r), in bounded memory.
 */
export function* resultChunks(r: HarvestRun, output: "text" | "json"): Generator<string> {
  let buf = "";
  const parts = output === "text" ? textParts(r) : jsonParts(r);
  for (const p of parts) {
    buf += p;
    if (buf.length >= CHUNK) {
      yield buf;
      buf = "";
    }
  }
  if (buf) yield buf;
}

function* textParts(r: HarvestRun): Generator<string> {
  for (const c of r.cases()) yield previewLine(c);
}

function* jsonParts(r: HarvestRun): Generator<string> {
  const { experiment, dryRun, rows, steps, skippedInvalidExpected } = r;
  // The head is stringified as an object so its keys and escaping are exactly JSON.stringify's.
  yield `${JSON.stringify({ experiment, dryRun, rows, steps, skippedInvalidExpected }).slice(0, -1)},"cases":[`;
  yield* commaSeparated(r.cases());
  yield `],"written":[`;
  yield* commaSeparated(r.written());
  yield "]}\n";
}

function* commaSeparated(xs: Iterable<unknown>): Generator<string> {
  let first = true;
  for (const x of xs) {
    yield first ? JSON.stringify(x) : `,${JSON.stringify(x)}`;
    first = false;
  }
}
