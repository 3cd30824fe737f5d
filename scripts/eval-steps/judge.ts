// `eval-steps judge`: grades an experiment's pairs with a judge model (candidate against control,
// rubric, seeded sample, already-graded pairs skipped) and appends one JSON line per pair to the
// history file `harvest --select judge-loss` reads (format: lib/steps/history.ts). Thin: flags ->
// lib/steps/judge-pairs.ts -> a summary. Exit 0 done (or no new pairs), 1 every judge call failed,
// 2 usage, 3 a bad input file (pair store, key, history, rubric).
import { defineCommand } from "citty";
import { UsageError } from "../../lib/core/errors.ts";
import { flagValues, repeatable } from "../../lib/core/flags.ts";
import { judgePairs } from "../../lib/steps/judge-pairs.ts";
import { DEFAULT_MAX_ROW_BYTES } from "../../lib/steps/pairs/index.ts";
import { checkFlags, keyFromEnv, positiveInt } from "../../lib/steps/replay-run.ts";

export const judge = defineCommand({
  meta: { name: "judge", description: "grade pairs with a judge model into the history file" },
  args: {
    pairs: { type: "string", required: true, description: "the pair store (JSONL)" },
    "pair-key-file": repeatable({
      type: "string",
      description: "key file for sealed rows; repeat (or comma-separate) for retired keys",
    }),
    experiment: { type: "string", required: true, description: "the experiment to grade" },
    history: { type: "string", required: true, description: "the history file to append to (JSONL)" },
    rubric: { type: "string", required: true, description: "the rubric file" },
    "judge-model": { type: "string", required: true, description: "judge model" },
    "judge-url": { type: "string", required: true, description: "judge base URL" },
    "judge-key-env": {
      type: "string",
      required: true,
      description: "NAME of the variable holding the judge's key",
    },
    "judge-protocol": { type: "string", description: "anthropic (default), responses, gemini or bedrock" },
    region: { type: "string", description: "Bedrock signing region" },
    sample: { type: "string", description: "pairs to grade (default 50, 0 = all)" },
    seed: { type: "string", description: "sample and order seed (default 1)" },
    "max-row-bytes": { type: "string", description: "longest pair store row in bytes (default 33554432)" },
    parallel: { type: "string", description: "judge calls at once (default 4)" },
    output: { type: "string", description: "text (default) or json" },
  },
  async run({ args }) {
    const { output, protocol } = checkFlags(args.output, "--judge-protocol", args["judge-protocol"]);
    if (!/^https?:\/\//.test(args["judge-url"]))
      throw new UsageError(`--judge-url must be an http(s) URL, got "${args["judge-url"]}"`);
    const sample = args.sample === "0" ? 0 : positiveInt("--sample", args.sample, 50);
    const r = await judgePairs({
      pairs: args.pairs,
      // Every --pair-key-file is kept (lib/core/flags.ts); a comma list is accepted too.
      pairKeyFiles: flagValues(args["pair-key-file"])
        .flatMap((v) => v.split(","))
        .filter(Boolean),
      experiment: args.experiment,
      history: args.history,
      rubric: args.rubric,
      route: {
        protocol: protocol,
        url: args["judge-url"],
        model: args["judge-model"],
        key: keyFromEnv("--judge-key-env", args["judge-key-env"], process.env),
        ...((args.region ?? process.env.AWS_REGION) ? { region: args.region ?? process.env.AWS_REGION } : {}),
      },
      sample,
      seed: positiveInt("--seed", args.seed, 1),
      parallel: positiveInt("--parallel", args.parallel, 4),
      maxRowBytes: positiveInt("--max-row-bytes", args["max-row-bytes"], DEFAULT_MAX_ROW_BYTES),
    });
    if (output === "json") process.stdout.write(`${JSON.stringify(r)}\n`);
    else if (r.selected === 0) process.stdout.write(`no new pairs for experiment ${r.experiment}\n`);
    else
      process.stdout.write(
        `judged ${r.graded} of ${r.selected} pairs of experiment ${r.experiment} -> ${args.history} (${r.alreadyGraded} already graded, ${r.unusable} unusable, ${r.errors.length} errors)\n`,
      );
    for (const e of r.errors) process.stderr.write(`✗ pair ${e.id}: ${e.error}\n`);
    return r.selected > 0 && r.graded === 0 ? 1 : 0;
  },
});
