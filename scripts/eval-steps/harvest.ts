// `eval-steps harvest`: shadow pairs -> redacted step cases. Thin: flags -> lib/steps/harvest.ts ->
// the selection on stdout (text, or --output json). Exit 0 done (also when nothing was selected),
// 2 usage (also an --out that exists and is not empty), 3 a bad input file (pair store, a row over
// --max-row-bytes, a repeated pair id, key, history) or a redaction that failed closed, 4 the cases
// could not be written (--out left as it was). With --dry-run it prints the selection and writes nothing.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/core/errors.ts";
import { flagValues, repeatable } from "../../lib/core/flags.ts";
import { createLogger } from "../../lib/core/log.ts";
import type { SelectReason } from "../../lib/steps/case.ts";
import { type HarvestResult, harvest as runHarvest } from "../../lib/steps/harvest.ts";

function num(flag: string, v: unknown, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (String(v).trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} must be ${integer ? "an integer" : "a number"}, got "${String(v)}"`);
  return n;
}

function render(r: HarvestResult): string {
  const lines = r.cases.map(
    (c) =>
      `${c.id}\tdepth ${c.provenance.depth}\t${c.reasons.join(",")}\texpected ${c.expectedTools.join(",") || "(end turn)"} from ${c.expectedFrom}`,
  );
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

export const harvest = defineCommand({
  meta: { name: "harvest", description: "harvest redacted step cases from a shadow pair store" },
  args: {
    pairs: {
      type: "string",
      required: true,
      description: "the pair store (JSONL, plaintext or sealed rows)",
    },
    "pair-key-file": repeatable({
      type: "string",
      description: "pair key file (base64); repeat for retired keys",
    }),
    "session-key-file": {
      type: "string",
      description: "key that hashes session ids (default: derived from the first --pair-key-file)",
    },
    experiment: { type: "string", required: true, description: "the experiment whose pairs to harvest" },
    out: {
      type: "string",
      description: "the step suite directory to create (absent or empty; mode 0700, published in one rename)",
    },
    history: { type: "string", description: "judge history JSONL (eval-steps judge), for judge-loss" },
    select: {
      type: "string",
      description: "diverged,invalid-call,premature-stop,judge-loss,sample (default: the first three)",
    },
    "per-depth": { type: "string", description: "sample size per depth bucket (default 5)" },
    "judge-loss": { type: "string", description: "judge score margin that counts as a loss (default 0.2)" },
    "keep-field": repeatable({
      type: "string",
      description: "also keep this top-level request field; repeatable",
    }),
    "redact-pattern": repeatable({
      type: "string",
      description: "also redact what this regex matches; repeatable",
    }),
    seed: { type: "string", description: "seed of the sample (default 1)" },
    "max-row-bytes": { type: "string", description: "longest pair store row in bytes (default 33554432)" },
    "dry-run": { type: "boolean", description: "print the selection, write nothing" },
    output: { type: "string", description: "text (default) or json" },
  },
  async run({ args }) {
    const output = args.output ?? "text";
    if (output !== "text" && output !== "json")
      throw new UsageError(`--output must be text or json, got "${output}"`);
    const log = createLogger("eval-steps");
    const r = await runHarvest({
      pairs: args.pairs,
      pairKeyFiles: flagValues(args["pair-key-file"]),
      ...(args["session-key-file"] ? { sessionKeyFile: args["session-key-file"] } : {}),
      experiment: args.experiment,
      ...(args.out ? { out: args.out } : {}),
      ...(args.history ? { history: args.history } : {}),
      ...(args.select !== undefined
        ? {
            select: String(args.select)
              .split(",")
              .map((s) => s.trim()) as SelectReason[],
          }
        : {}),
      ...(args["per-depth"] !== undefined ? { perDepth: num("--per-depth", args["per-depth"], true) } : {}),
      ...(args["judge-loss"] !== undefined
        ? { judgeLoss: num("--judge-loss", args["judge-loss"], false) }
        : {}),
      keepFields: flagValues(args["keep-field"]),
      redactPatterns: flagValues(args["redact-pattern"]),
      ...(args.seed !== undefined ? { seed: num("--seed", args.seed, true) } : {}),
      ...(args["max-row-bytes"] !== undefined
        ? { maxRowBytes: num("--max-row-bytes", args["max-row-bytes"], true) }
        : {}),
      dryRun: args["dry-run"] === true,
    });
    process.stdout.write(output === "json" ? `${JSON.stringify(r)}\n` : render(r));
    log.info(
      `${r.rows} rows, ${r.steps} steps, ${r.cases.length} cases selected, ${r.skippedInvalidExpected} skipped (invalid expected action)${r.dryRun ? ", dry run: nothing written" : `, ${r.written.length} written`}`,
    );
    return 0;
  },
});
