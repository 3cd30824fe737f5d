// The suite's `matrix:` key (the original halo eval's newer generation): one run across harness x
// model x provider, expanded into ordinary variants named <harness>@<version>/<model>[/<provider>] in
// declaration order, with the baseline cell as the control. A provider is a gateway model alias: with
// `aliases` it applies only to the models it maps, so the CLI side stays provider-agnostic. Also the
// original's compact terminal table of a run (`--matrix`): one row per cell, its gate verdict.
import { z } from "zod";
import { goFixed } from "../compat/go.ts";
import { ConfigError } from "../core/errors.ts";
import { measured, NOT_MEASURED } from "./scorecard/evidence.ts";
import type { Scorecard } from "./scorecard/schema.ts";

/** One CLI at a pinned version and the models to run it on. */
export const MatrixHarnessFile = z
  .object({
    harness: z.string().min(1).describe("an agent harness the suite knows (checked when the suite loads)"),
    version: z.string().optional().describe("the harness CLI version; part of each cell's name"),
    models: z.array(z.string().min(1)).min(1),
    settings: z.string().optional().describe("a rendered managed-settings file inside the suite's directory"),
  })
  .strict();
export type MatrixHarnessFile = z.infer<typeof MatrixHarnessFile>;

/** An upstream; `aliases` maps model -> gateway alias (absent: every model under its own name). */
export const MatrixProviderFile = z
  .object({
    name: z.string().min(1),
    aliases: z.record(z.string().min(1), z.string().min(1)).optional(),
  })
  .strict();
export type MatrixProviderFile = z.infer<typeof MatrixProviderFile>;

/** The `matrix:` key of a suite.yaml. */
export const MatrixFile = z
  .object({
    baseline: z.string().optional().describe("the control cell's name (default: the first cell)"),
    harnesses: z.array(MatrixHarnessFile).min(1),
    providers: z.array(MatrixProviderFile).optional(),
  })
  .strict();
export type MatrixFile = z.infer<typeof MatrixFile>;

/** Dotted key paths under the suite whose plain YAML scalars stay strings (`version: 2.10` is "2.10"). */
export const MATRIX_STRING_KEYS: readonly string[] = [
  "matrix.baseline",
  "matrix.harnesses.harness",
  "matrix.harnesses.version",
  "matrix.harnesses.models",
  "matrix.harnesses.settings",
  "matrix.providers.name",
];

/** One expanded cell: a variant as a suite.yaml would spell it (`model` is the provider's alias). */
export interface MatrixCell {
  name: string;
  harness: string;
  version?: string;
  model: string;
  provider?: string;
  settings?: string;
}

/**
 * The matrix's cells in declaration order (harness, then model, then provider) and the control: the
 * baseline, else the first cell. A provider with aliases skips the models it does not map, as the
 * original did. Throws ConfigError (no file prefix: the suite loader adds it) when nothing is left
 * or the baseline names no cell, listing the cells.
 */
export function expandMatrix(matrix: MatrixFile): { variants: MatrixCell[]; control: string } {
  const providers: (MatrixProviderFile | undefined)[] = matrix.providers?.length
    ? matrix.providers
    : [undefined];
  const variants: MatrixCell[] = [];
  for (const h of matrix.harnesses)
    for (const model of h.models)
      for (const p of providers) {
        const aliases = p?.aliases && Object.keys(p.aliases).length > 0 ? p.aliases : undefined;
        if (aliases && !Object.hasOwn(aliases, model)) continue;
        const cell: MatrixCell = {
          name: `${h.harness}@${h.version ?? ""}/${model}${p ? `/${p.name}` : ""}`,
          harness: h.harness,
          model: aliases ? aliases[model]! : model,
        };
        if (h.version !== undefined) cell.version = h.version;
        if (p) cell.provider = p.name;
        if (h.settings !== undefined) cell.settings = h.settings;
        variants.push(cell);
      }
  if (variants.length === 0)
    throw new ConfigError("matrix: expands to no cells (every provider's aliases skip every model)");
  const control = matrix.baseline || variants[0]!.name;
  if (!variants.some((v) => v.name === control)) {
    const names = variants.map((v) => JSON.stringify(v.name)).join(", ");
    throw new ConfigError(`matrix.baseline: "${control}" is not a cell (cells: ${names})`);
  }
  return { variants, control };
}

/**
 * The original's fixed-width terminal table: pass@1, pass@k, pass^k, cost (Cost/task, per trial) and
 * p50, tool calls per trial (— where the harness reported none), and each cell's verdict (the control
 * "baseline", else its gate verdict, else its comparison verdict); the scorecard's gate last. Ours:
 * the headline decision above it, as every output of a scorecard leads with it.
 */
export function renderMatrixTable(sc: Scorecard): string {
  // The headline decision first, as in every output of a scorecard (scorecard/headline.ts).
  const headline = sc.headline === undefined ? "" : `${sc.headline.text}\n\n`;
  const verdict = new Map<string, string>([[sc.control, "baseline"]]);
  for (const c of sc.comparisons ?? []) verdict.set(c.variant, c.gate?.verdict ?? c.verdict);
  const w = Math.max("VARIANT".length, ...sc.variants.map((v) => v.name.length));
  const k = Math.max(sc.k ?? 0, 1);
  const pct = (x: number | undefined) => `${goFixed(100 * (x ?? 0), 0).padStart(5)}%`;
  const line = (cells: string[]) => `${cells.join("  ")}\n`;
  let out =
    headline +
    line([
      "VARIANT".padEnd(w),
      "PASS@1".padStart(6),
      `PASS@${k}`.padStart(6),
      `PASS^${k}`.padStart(6),
      "$/TASK".padStart(8),
      "P50".padStart(7),
      "TOOLS".padStart(5),
      "VERDICT",
    ]);
  for (const v of sc.variants) {
    const calls = v.toolCalls ?? 0;
    out += line([
      v.name.padEnd(w),
      pct(v.pass1),
      pct(v.passAtK),
      pct(v.passHatK),
      (measured(v, "cost") ? `$${goFixed(v.costPerTaskUSD, 3)}` : NOT_MEASURED).padStart(8),
      `${goFixed(v.wallP50Ms / 1000, 1).padStart(6)}s`,
      (v.toolCalls === undefined ? NOT_MEASURED : goFixed(v.trials > 0 ? calls / v.trials : 0, 1)).padStart(
        5,
      ),
      verdict.get(v.name) ?? "",
    ]);
  }
  if (sc.gate) out += `gate: ${sc.gate.verdict.toUpperCase()}\n`;
  return out;
}
