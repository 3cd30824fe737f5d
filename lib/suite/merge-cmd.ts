// `agent-eval suite merge SUITE.yaml TRIALS...`: its flags, its exit codes and its outputs. The outputs
// are the whole run's (`agent-eval suite` with the same seed), finished the same way (the gate,
// --history's line and trend, --matrix's table, the internet note): the scorecard on stdout (or JSON
// with --output json), --scorecard FILE, --report FILE. --seal-key-env NAME checks every shard's seal
// (seal.ts); without it one line on stderr says the shards were checked for consistency only. Exit
// codes (MERGE_EDGE): 0 merged; 2 refused: a bad command line (a seal key variable unset or short) or a
// missing, duplicated, foreign or unsealed shard, or a seal that does not match (merge.ts); 3 --fail-on
// tripped by the merged run's gate; 1 any other error (a bad suite file, as `agent-eval suite` itself says it).
import type { ArgsDef } from "citty";
import type { ToolEdge } from "../core/cli.ts";
import { ConfigError, ToolError, UsageError } from "../core/errors.ts";
import { numberFlag } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { GATE_ARGS, type GateFlags, parseGateFlags, prepareRelease } from "./gate-cmd.ts";
import { prepareHarbor } from "./harbor/trial.ts";
import { MERGE_EXIT, mergeShards } from "./merge.ts";
import { type PublishOptions, publishRun } from "./publish.ts";
import type { Trial } from "./scorecard/index.ts";
import { type SealKey, takeSealKey } from "./seal.ts";
import { loadSuite } from "./suite.ts";

/** merge's edge: 2 for a refusal (bad flags, a shard that does not belong), 1 for anything else. */
export const MERGE_EDGE: ToolEdge = {
  usageExit: MERGE_EXIT,
  remap: (e) => (e.exitCode === MERGE_EXIT ? MERGE_EXIT : 1),
  unexpectedExit: 1,
  line: (message) => `error: ${message.split("\n")[0]}`,
};

const str = (description: string) => ({ type: "string", description }) as const;

/** The flags of `agent-eval suite merge`. */
export const MERGE_ARGS = {
  suite: { type: "positional", required: false, description: "the suite file the shards ran" },
  trials: { type: "positional", required: false, description: "TRIALS...: every shard's trials file" },
  seed: str("refuse shards run with another seed (default: take the shards' own)"),
  output: str("text (default, Markdown), markdown or json"),
  scorecard: str("also write the JSON scorecard to FILE"),
  report: str("also write a report to FILE (Markdown; HTML if FILE ends in .html)"),
  tasks: str("the tasks directory (default <suite dir>/../tasks)"),
  "seal-key-env": str("NAME: the variable holding the shards' seal key; every shard must be sealed under it"),
  ...GATE_ARGS,
} as const satisfies ArgsDef;

/** The merge flags as citty hands them over; `_` holds the words (suite, then trials files). */
export interface MergeFlags extends GateFlags {
  _?: string[];
  seed?: string;
  output?: string;
  scorecard?: string;
  report?: string;
  tasks?: string;
  "seal-key-env"?: string;
}

/** The seal key a merge checks against, or none (read before anything else, then gone from the environment). */
function sealKeyOf(name: string | undefined): SealKey | undefined {
  if (name === undefined) return undefined;
  try {
    return takeSealKey(name);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The one line a merge without a key says: it could not tell an edited shard from a true one. */
export const CONSISTENCY_ONLY =
  "warning: no --seal-key-env: the shards were checked for consistency only (suite, digest, seed, deal), not for integrity: an edited trials file would merge";

const OUTPUTS = ["text", "json", "markdown"];

/** Runs `agent-eval suite merge`: 0 when merged; refusals and errors go to the edge (MERGE_EDGE). */
export async function mergeCommand(flags: MergeFlags): Promise<number> {
  const key = sealKeyOf(flags["seal-key-env"]);
  const [suitePath, ...files] = (flags._ ?? []).filter((w) => w !== "");
  if (suitePath === undefined)
    throw new UsageError("missing the suite file: agent-eval suite merge SUITE.yaml TRIALS...");
  const output = flags.output ?? "text";
  if (!OUTPUTS.includes(output))
    throw new UsageError(`--output: expected text, json or markdown, got ${JSON.stringify(output)}`);
  const seed = flags.seed === undefined ? undefined : numberFlag("--seed", flags.seed, {});
  const release = gateFlags(flags);
  // As the shards ran it: --matrix makes the matrix's cells the variants (and so the digest).
  const suite = prepareRelease(loadSuite(suitePath, flags.tasks ? { tasksDir: flags.tasks } : {}), release);
  const merged = mergeShards(suite, files, seed, key);
  const base = new Map<Trial, string>(merged.trials.map((t, i) => [t, merged.bases[i]!]));
  const { internet } = prepareHarbor(suite.tasks, { imageMap: undefined, network: merged.network });
  const log = createLogger("agent-eval");
  log.info(
    `merged ${merged.shards} shards of suite ${suite.name}: ${merged.trials.length} trials, seed ${merged.seed}${key ? ", every seal checked" : ""}`,
  );
  if (key === undefined) log.warn(CONSISTENCY_ONLY);
  const run = {
    suite,
    scorecard: merged.scorecard,
    trials: merged.trials,
    logBase: (t: Trial) => base.get(t),
    internet,
  };
  return publishRun(
    run,
    { output: output as PublishOptions["output"], scorecard: flags.scorecard, report: flags.report, release },
    log,
  );
}

/** The gate flags, a bad one refused as a bad command line (exit 2 here, where the suite says 1). */
function gateFlags(flags: GateFlags) {
  try {
    return parseGateFlags(flags);
  } catch (error) {
    if (error instanceof ToolError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
