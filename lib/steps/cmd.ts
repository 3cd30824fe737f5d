// `eval-steps harvest | run | judge`: the command bodies behind scripts/eval-steps/. Flags to
// options (numbers through lib/core/flags.ts numberFlag), one call into the lane (harvest.ts,
// replay-run.ts, judge-pairs.ts), the result on stdout as text or JSON. Exit codes: 0 done, 1 every
// model or judge call failed (nothing measured), 2 usage, 3 a bad input file, 4 cases not written.
import { once } from "node:events";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { flagValues, numberFlag, repeatable } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { Progress, progressMode } from "../core/progress.ts";
import { parseShard } from "../core/shard.ts";
import type { SelectReason } from "./case.ts";
import { harvestRun } from "./harvest.ts";
import { resultChunks } from "./harvest-result.ts";
import { judgePairs } from "./judge-pairs.ts";
import { DEFAULT_MAX_ROW_BYTES } from "./pairs/index.ts";
import { publishScorecard } from "./publish.ts";
import { keyFromEnv, ROUTE_PROTOCOLS, type RunOptions, runStepSuite } from "./replay-run.ts";

const str = (description: string) => ({ type: "string", description }) as const;
const need = (description: string) => ({ type: "string", required: true, description }) as const;
const OUTPUT = str("text (default) or json");
const MAX_ROW = str("longest pair store row in bytes (default 33554432)");
const PROTOCOL = str("anthropic (default), responses, gemini or bedrock");

/** The flags of each subcommand. */
export const ARGS = {
  harvest: {
    pairs: need("the pair store (JSONL, plaintext or sealed rows)"),
    "pair-key-file": repeatable(str("pair key file (base64); repeat for retired keys")),
    "session-key-file": str("key that hashes session ids (default: derived from the first --pair-key-file)"),
    experiment: need("the experiment whose pairs to harvest"),
    out: str("the step suite directory to create (absent or empty; mode 0700, published in one rename)"),
    history: str("judge history JSONL (eval-steps judge), for judge-loss"),
    select: str("diverged,invalid-call,premature-stop,judge-loss,sample (default: the first three)"),
    "per-depth": str("sample size per depth bucket (default 5)"),
    "judge-loss": str("judge score margin that counts as a loss (default 0.2)"),
    "keep-field": repeatable(str("also keep this top-level request field; repeatable")),
    "redact-pattern": repeatable(str("also redact what this regex matches; repeatable")),
    seed: str("seed of the sample (default 1)"),
    "max-row-bytes": MAX_ROW,
    "dry-run": { type: "boolean", description: "print the selection, write nothing" },
    output: OUTPUT,
  },
  run: {
    suite: need("the step suite directory (<id>.json cases)"),
    model: need("gateway alias or upstream model id"),
    url: need("base URL of the gateway or provider"),
    "key-env": str(
      "NAME of the variable holding the key (none: no credential is sent, e.g. to proctor mock-model)",
    ),
    parallel: str("requests at once (default 4)"),
    output: OUTPUT,
    scorecard: str("also write the scorecard JSON to FILE"),
    report: str("also write a self-contained HTML report to FILE"),
    seed: str("bootstrap seed (default 1)"),
    shard: str("replay only part K of N (0-based, e.g. 0/4), whole sessions; `eval-steps merge` joins them"),
    region: str("Bedrock signing region (default: from --url or AWS_REGION)"),
    timeout: str("seconds to wait for one reply (default 300)"),
    rubric: str("rubric file: adds a judge score per step (needs --judge-*)"),
    "judge-model": str("judge model"),
    "judge-url": str("judge base URL"),
    "judge-key-env": str("NAME of the variable holding the judge's key"),
    "judge-protocol": PROTOCOL,
  },
  judge: {
    pairs: need("the pair store (JSONL)"),
    "pair-key-file": repeatable(str("key file for sealed rows; repeat (or comma-separate) for retired keys")),
    experiment: need("the experiment to grade"),
    history: need("the history file to append to (JSONL)"),
    rubric: need("the rubric file"),
    "judge-model": need("judge model"),
    "judge-url": need("judge base URL"),
    "judge-key-env": need("NAME of the variable holding the judge's key"),
    "judge-protocol": PROTOCOL,
    region: str("Bedrock signing region"),
    sample: str("pairs to grade (default 50, 0 = all)"),
    seed: str("sample and order seed (default 1)"),
    "max-row-bytes": MAX_ROW,
    parallel: str("judge calls at once (default 4)"),
    output: OUTPUT,
  },
} as const satisfies Record<string, ArgsDef>;

type Args<K extends keyof typeof ARGS> = ParsedArgs<(typeof ARGS)[K]>;

/** `--output` (text or json). */
export function outputOf(value: string | undefined): "text" | "json" {
  const out = value ?? "text";
  if (out !== "text" && out !== "json") throw new UsageError(`--output must be text or json, got "${out}"`);
  return out;
}

/** A protocol flag's value, one of ROUTE_PROTOCOLS. */
function protocolOf(flag: string, value: string | undefined): (typeof ROUTE_PROTOCOLS)[number] {
  const p = value ?? "anthropic";
  if (!(ROUTE_PROTOCOLS as readonly string[]).includes(p))
    throw new UsageError(`${flag} must be one of ${ROUTE_PROTOCOLS.join(", ")}, got "${p}"`);
  return p as (typeof ROUTE_PROTOCOLS)[number];
}

const atLeast1 = (flag: string, value: string | undefined, fallback: number) =>
  numberFlag(flag, value, { min: 1, fallback });

/** Writes chunks to stdout, waiting whenever its buffer is full (so memory stays bounded). */
async function printChunks(chunks: Iterable<string>): Promise<void> {
  for (const c of chunks) if (!process.stdout.write(c)) await once(process.stdout, "drain");
}

/** `eval-steps harvest`: shadow pairs -> redacted step cases; the selection on stdout. */
export async function harvestCmd(args: Args<"harvest">): Promise<number> {
  const output = outputOf(args.output);
  using r = await harvestRun({
    pairs: args.pairs,
    pairKeyFiles: flagValues(args["pair-key-file"]),
    ...(args["session-key-file"] ? { sessionKeyFile: args["session-key-file"] } : {}),
    experiment: args.experiment,
    ...(args.out ? { out: args.out } : {}),
    ...(args.history ? { history: args.history } : {}),
    ...(args.select !== undefined
      ? { select: args.select.split(",").map((s) => s.trim()) as SelectReason[] }
      : {}),
    perDepth: numberFlag("--per-depth", args["per-depth"], { min: 0 }),
    judgeLoss: numberFlag("--judge-loss", args["judge-loss"], { integer: false, min: 0, max: 1 }),
    keepFields: flagValues(args["keep-field"]),
    redactPatterns: flagValues(args["redact-pattern"]),
    seed: numberFlag("--seed", args.seed),
    maxRowBytes: numberFlag("--max-row-bytes", args["max-row-bytes"], { min: 1 }),
    dryRun: args["dry-run"] === true,
  });
  // Printed from the spill a chunk at a time: the previews of a big harvest are never all in memory.
  await printChunks(resultChunks(r, output));
  createLogger("eval-steps").info(
    `${r.rows} rows, ${r.steps} steps, ${r.count} cases selected, ${r.skippedInvalidExpected} skipped (invalid expected action)${r.dryRun ? ", dry run: nothing written" : `, ${r.count} written`}`,
  );
  return 0;
}

/** The judge of `run --rubric` from its flags: all of rubric, model, URL and key variable, or none. */
function judgeOf(args: Args<"run">): RunOptions["judge"] {
  const protocol = protocolOf("--judge-protocol", args["judge-protocol"]);
  const [model, url, keyEnv] = [args["judge-model"], args["judge-url"], args["judge-key-env"]];
  if (!args.rubric) {
    if (model || url || keyEnv) throw new UsageError("--judge-* flags need --rubric");
    return undefined;
  }
  if (!model || !url || !keyEnv)
    throw new UsageError("--rubric needs --judge-model, --judge-url and --judge-key-env");
  return { rubric: args.rubric, model, url, keyEnv, protocol };
}

/** `eval-steps run`: replays a step suite against one model route and prints the step scorecard. */
export async function runCmd(args: Args<"run">): Promise<number> {
  const output = outputOf(args.output);
  const judge = judgeOf(args);
  // Progress (lib/core/progress.ts), made once the count is known: the live line on a terminal, else
  // one `eval-steps run n/N` line per tenth of the steps.
  let progress: Progress | undefined;
  const sc = await runStepSuite({
    suite: args.suite,
    model: args.model,
    url: args.url,
    ...(args["key-env"] !== undefined ? { keyEnv: args["key-env"] } : {}),
    parallel: atLeast1("--parallel", args.parallel, 4),
    timeoutMs: atLeast1("--timeout", args.timeout, 300) * 1000,
    seed: atLeast1("--seed", args.seed, 1),
    ...(args.shard !== undefined ? { shard: parseShard(args.shard) } : {}),
    ...(args.region ? { region: args.region } : {}),
    ...(judge ? { judge } : {}),
    onResult: (r, _done, total) => {
      progress ??= new Progress(total, progressMode(), process.stderr, "eval-steps run");
      progress.finish(r.id);
    },
  });
  progress?.clear();
  return publishScorecard(sc, {
    output,
    ...(args.scorecard ? { scorecard: args.scorecard } : {}),
    ...(args.report ? { report: args.report } : {}),
  });
}

/** `eval-steps judge`: grades pairs into the history file; a summary on stdout. */
export async function judgeCmd(args: Args<"judge">): Promise<number> {
  const output = outputOf(args.output);
  const protocol = protocolOf("--judge-protocol", args["judge-protocol"]);
  if (!/^https?:\/\//.test(args["judge-url"]))
    throw new UsageError(`--judge-url must be an http(s) URL, got "${args["judge-url"]}"`);
  const region = args.region ?? process.env.AWS_REGION;
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
      protocol,
      url: args["judge-url"],
      model: args["judge-model"],
      key: keyFromEnv("--judge-key-env", args["judge-key-env"], process.env),
      ...(region ? { region } : {}),
    },
    sample: numberFlag("--sample", args.sample, { min: 0, fallback: 50 }),
    seed: atLeast1("--seed", args.seed, 1),
    parallel: atLeast1("--parallel", args.parallel, 4),
    maxRowBytes: atLeast1("--max-row-bytes", args["max-row-bytes"], DEFAULT_MAX_ROW_BYTES),
  });
  if (output === "json") process.stdout.write(`${JSON.stringify(r)}\n`);
  else if (r.selected === 0) process.stdout.write(`no new pairs for experiment ${r.experiment}\n`);
  else
    process.stdout.write(
      `judged ${r.graded} of ${r.selected} pairs of experiment ${r.experiment} -> ${args.history} (${r.alreadyGraded} already graded, ${r.unusable} unusable, ${r.errors.length} errors)\n`,
    );
  const log = createLogger("eval-steps");
  for (const e of r.errors) log.error(`✗ pair ${e.id}: ${e.error}`);
  return r.selected > 0 && r.graded === 0 ? 1 : 0;
}
