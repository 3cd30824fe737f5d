// A shard of a suite run (`agent-eval suite --shard K/N`): which trials it runs and what it records.
// A trial's stable id is task id + variant + repeat, dealt by lib/core/shard.ts (hash order, balanced),
// never by order or time. A sharded trials file opens with one header line (ShardHeader: K/N, the
// suite's name and digest, the seed, the runner, the network) so merge can refuse a foreign shard; an unsharded
// file has no header and stays byte-identical to the original's. Merging is merge.ts.
import { isAbsolute, relative, sep } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { firstIssue } from "../core/jsonl.ts";
import { dealGroups, parseShard, type Shard, selectShard, shardLabel } from "../core/shard.ts";
import { parseTrials, type Trial } from "./scorecard/index.ts";
import type { Suite } from "./suite.ts";
import type { TrialJob } from "./trial.ts";

/** What marks a trials file's first line as a shard header (a trial has a task, a header never). */
export const SHARD_KIND = "proctor.suite.shard";

/** The first line of a sharded trials file. */
export const ShardHeader = z
  .object({
    kind: z.literal(SHARD_KIND),
    version: z.literal(1),
    shard: z.string().regex(/^\d+\/\d+$/, "expected K/N"),
    suite: z.string().min(1),
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, "expected sha256:<64 hex digits>"),
    seed: z.number().int(),
    runner: z.enum(["docker", "local"]),
    network: z
      .enum(["none", "bridge"])
      .describe("the trials' --network: it decides what the scorecard says of internet access"),
  })
  .strict();
export type ShardHeader = z.infer<typeof ShardHeader>;

/** The JSON Schema committed as schemas/suite-shard.schema.json. */
export function shardHeaderJsonSchema(): unknown {
  return z.toJSONSchema(ShardHeader);
}

/** A trial's stable key (the unit a shard is dealt, the trial --resume keeps): task id, variant, repeat. */
export function trialKey(t: { task: string; variant: string; repeat: number }): string {
  return `${t.task}\u0000${t.variant}\u0000${t.repeat}`;
}

/** A job's stable id: the key of the trial it runs. */
export function jobId(job: { task: { id: string }; variant: { name: string }; repeat: number }): string {
  return trialKey({ task: job.task.id, variant: job.variant.name, repeat: job.repeat });
}

/** The jobs of `shard`, in the suite's job order. */
export function shardJobs(jobs: readonly TrialJob[], shard: Shard): TrialJob[] {
  return selectShard(jobs, shard, jobId);
}

/** Every job's shard at once (index = job index), the deal shardJobs makes: merge deals once, not per file. */
export function dealJobs(jobs: readonly TrialJob[], count: number): number[] {
  const placed = dealGroups(new Map(jobs.map((j) => [jobId(j), 1])), count);
  return jobs.map((j) => placed.get(jobId(j))!);
}

/**
 * The digest of a suite and its tasks as loaded (every field, matrix and defaults applied), with
 * absolute paths made relative to the suite's directory so two checkouts of one commit agree. The
 * tasks' repositories are not read: the digest says "same suite", not "same code under test".
 */
export function suiteDigest(suite: Suite): string {
  const text = JSON.stringify(suite, (_key, value) =>
    typeof value === "string" && isAbsolute(value) ? relative(suite.dir, value).split(sep).join("/") : value,
  );
  return `sha256:${sha256Hex(text)}`;
}

/** The header a shard of `suite` writes first. */
export function shardHeader(
  suite: Suite,
  shard: Shard,
  seed: number,
  local: boolean,
  network: ShardHeader["network"] = "none",
): ShardHeader {
  return {
    kind: SHARD_KIND,
    version: 1,
    shard: shardLabel(shard),
    suite: suite.name,
    digest: suiteDigest(suite),
    seed,
    runner: local ? "local" : "docker",
    network,
  };
}

/** The header as its line. */
export function headerLine(header: ShardHeader): string {
  return `${JSON.stringify(header)}\n`;
}

/** A trials file's text split: its header (when the first line is one) and its trial lines. */
export interface TrialsText {
  header?: ShardHeader;
  shard?: Shard;
  trials: Trial[];
}

/** Parses a trials file's text; a first line of kind SHARD_KIND must be a whole ShardHeader. */
export function parseTrialsText(text: string, path: string): TrialsText {
  const nl = text.indexOf("\n");
  const first = nl < 0 ? text : text.slice(0, nl);
  if (!first.includes(SHARD_KIND)) return { trials: parseTrials(text, path) };
  let data: unknown;
  try {
    data = JSON.parse(first);
  } catch {
    return { trials: parseTrials(text, path) }; // the trial reader names the line and the fault
  }
  if ((data as { kind?: unknown } | null)?.kind !== SHARD_KIND) return { trials: parseTrials(text, path) };
  const r = ShardHeader.safeParse(data);
  if (!r.success)
    throw new ConfigError(`Cannot load trials "${path}": line 1: shard header: ${firstIssue(r.error)}`);
  let shard: Shard;
  try {
    shard = parseShard(r.data.shard, "shard");
  } catch (error) {
    throw new ConfigError(`Cannot load trials "${path}": line 1: ${(error as Error).message}`);
  }
  // Line numbers in errors stay the file's: the header line is blanked, not cut.
  return { header: r.data, shard, trials: parseTrials(nl < 0 ? "" : `\n${text.slice(nl + 1)}`, path) };
}
