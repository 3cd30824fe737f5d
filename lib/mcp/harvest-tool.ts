// The `eval_harvest` MCP tool: its input (the `eval-steps harvest` flags, snake_case), path
// containment for every file it names, the write gate (--allow-writes on the server AND dry_run:
// false in the call), and the preview it returns: per case the provenance and the expected tool
// names only, never the request, arguments or anything else a case holds. Every file the harvest
// touches goes through confinedFiles (descriptor walks under the root the path lies in), and the
// cases are written only into a new (or empty) directory, published in one rename.
import { z } from "zod";
import { SELECT_REASONS, type StepCase } from "../steps/case.ts";
import type { HarvestOptions, HarvestResult } from "../steps/harvest.ts";
import { confinedFiles } from "../steps/harvest-files.ts";
import { locate } from "./paths.ts";

/** The tool's arguments. Paths are relative to the server's working directory (or absolute) and contained. */
export const HarvestInput = z.strictObject({
  pairs: z.string().min(1).describe("the pair store (JSONL)"),
  experiment: z.string().min(1).describe("the experiment whose pairs to read"),
  out: z.string().min(1).optional().describe("the suite directory to write to (needed with dry_run: false)"),
  pair_key_files: z.array(z.string().min(1)).optional().describe("key files for sealed rows"),
  session_key_file: z.string().min(1).optional().describe("session hashing key (default: from the pair key)"),
  history: z.string().min(1).optional().describe("the judge history (needed by judge-loss)"),
  select: z.array(z.enum(SELECT_REASONS)).min(1).optional().describe("reasons to select"),
  per_depth: z.number().int().min(1).optional().describe("sample: steps per depth bucket (default 5)"),
  judge_loss: z.number().min(0).max(1).optional().describe("judge-loss threshold (default 0.2)"),
  keep_fields: z.array(z.string().min(1)).optional().describe("extra top-level request fields to keep"),
  redact_patterns: z.array(z.string().min(1)).optional().describe("extra regexes to redact"),
  seed: z.number().int().optional(),
  dry_run: z.boolean().default(true).describe("false writes the cases, and only with --allow-writes"),
});
export type HarvestInput = z.infer<typeof HarvestInput>;

/** The harvest library function (lib/steps/harvest.ts `harvest`), injectable for tests. */
export type HarvestRunner = (o: HarvestOptions) => Promise<HarvestResult>;

/** The tool's result: the preview (provenance and expected tool names per case) and what was written. */
export interface HarvestPreview {
  [key: string]: unknown;
  dryRun: boolean;
  count: number;
  cases: Array<{ id: string; expectedTools: string[]; provenance: StepCase["provenance"] }>;
  written: string[];
}

function contained(what: string, path: string, roots: readonly string[], cwd: string): string {
  const at = locate(path, roots, cwd);
  if (!at)
    throw new Error(`${what} must lie under the root or working directory, got ${JSON.stringify(path)}`);
  return at.abs;
}

/** Runs the tool: gate, contain, call the harvest, reduce its result to the preview. */
export async function harvestTool(
  args: HarvestInput,
  ctx: { roots: readonly string[]; cwd: string; allowWrites: boolean; run: HarvestRunner },
): Promise<HarvestPreview> {
  const dryRun = args.dry_run !== false;
  if (!dryRun && !ctx.allowWrites)
    throw new Error(
      "eval_harvest writes cases only when eval-mcp runs with --allow-writes; call it with dry_run: true to preview",
    );
  const at = (what: string, p: string) => contained(what, p, ctx.roots, ctx.cwd);
  if (!dryRun && !args.out) throw new Error("eval_harvest needs out to write cases");
  const opts: HarvestOptions = {
    pairs: at("pairs", args.pairs),
    experiment: args.experiment,
    ...(args.out ? { out: at("out", args.out) } : {}),
    pairKeyFiles: (args.pair_key_files ?? []).map((k) => at("pair_key_files", k)),
    ...(args.session_key_file ? { sessionKeyFile: at("session_key_file", args.session_key_file) } : {}),
    ...(args.history ? { history: at("history", args.history) } : {}),
    ...(args.select ? { select: args.select } : {}),
    ...(args.per_depth !== undefined ? { perDepth: args.per_depth } : {}),
    ...(args.judge_loss !== undefined ? { judgeLoss: args.judge_loss } : {}),
    ...(args.keep_fields ? { keepFields: args.keep_fields } : {}),
    ...(args.redact_patterns ? { redactPatterns: args.redact_patterns } : {}),
    ...(args.seed !== undefined ? { seed: args.seed } : {}),
    dryRun,
    files: confinedFiles((p) => {
      const at = locate(p, ctx.roots, ctx.cwd);
      if (!at) throw new Error(`${JSON.stringify(p)} must lie under the root or working directory`);
      return at;
    }),
  };
  const result = await ctx.run(opts);
  // Only what the preview promises: never a request, an argument or a reason text.
  const cases = result.cases.map((c) => ({
    id: c.id,
    expectedTools: [...c.expectedTools],
    provenance: c.provenance,
  }));
  return { dryRun, count: cases.length, cases, written: dryRun ? [] : [...result.written] };
}
