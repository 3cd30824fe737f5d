// `eval-steps harvest`: shadow pairs -> redacted step cases. Thin: flags -> lib/steps/harvest.ts ->
// the selection on stdout (text, or --output json). Exit 0 done (also when nothing was selected),
// 2 usage, 3 a bad input file (pair store, key, history) or a redaction that failed closed, 4 the
// cases could not be written. With --dry-run it prints the selection and writes nothing.
import { defineCommand } from "citty";
import { UsageError } from "../../lib/errors.ts";
import { createLogger } from "../../lib/log.ts";
import type { SelectReason } from "../../lib/steps/case.ts";
import { type HarvestResult, harvest as runHarvest } from "../../lib/steps/harvest.ts";

/** A flag given once or repeated (citty collects repeats into an array). */
function list(v: unknown): string[] {
  return v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String);
}

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
    "pair-key-file": { type: "string", description: "pair key file (base64); repeat for retired keys" },
    "session-key-file": {
      type: "string",
      description: "key that hashes session ids (default: derived from the first --pair-key-file)",
    },
    experiment: { type: "string", required: true, description: "the experiment whose pairs to harvest" },
    out: { type: "string", description: "the step suite directory to write (mode 0700)" },
    history: { type: "string", description: "judge history JSONL (eval-steps judge), for judge-loss" },
    select: {
      type: "string",
      description: "diverged,invalid-call,premature-stop,judge-loss,sample (default: the first three)",
    },
    "per-depth": { type: "string", description: "sample size per depth bucket (default 5)" },
    "judge-loss": { type: "string", description: "judge score margin that counts as a loss (default 0.2)" },
    "keep-field": { type: "string", description: "also keep this top-level request field; repeatable" },
    "redact-pattern": { type: "string", description: "also redact what this regex matches; repeatable" },
    seed: { type: "string", description: "seed of the sample (default 1)" },
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
      pairKeyFiles: list(args["pair-key-file"]),
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
      keepFields: list(args["keep-field"]),
      redactPatterns: list(args["redact-pattern"]),
      ...(args.seed !== undefined ? { seed: num("--seed", args.seed, true) } : {}),
      dryRun: args["dry-run"] === true,
    });
    process.stdout.write(output === "json" ? `${JSON.stringify(r)}\n` : render(r));
    log.info(
      `${r.rows} rows, ${r.steps} steps, ${r.cases.length} cases selected, ${r.skippedInvalidExpected} skipped (invalid expected action)${r.dryRun ? ", dry run: nothing written" : `, ${r.written.length} written`}`,
    );
    return 0;
  },
});
