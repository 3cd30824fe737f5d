// A shard of a suite run (`agent-eval suite --shard K/N`): which trials it runs and what it records.
// A trial's stable id is task id + variant + repeat, dealt by lib/core/shard.ts (hash order, balanced),
// never by order or time. A sharded trials file opens with one header line (ShardHeader: K/N, the
// suite's name and digest, the seed, the runner, the network, whether it is sealed) so merge can
// refuse a foreign shard; a sealed file's seal lines (seal.ts) are read past here and checked by
// their readers. An unsharded file has no header and stays byte-identical to the original's. Merging is merge.ts.
import { isAbsolute, relative, sep } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { firstIssue } from "../core/jsonl.ts";
import { dealGroups, parseShard, type Shard, selectShard, shardLabel } from "../core/shard.ts";
import { pathDigest } from "../core/tree-digest.ts";
import { parseTrials, type Trial } from "./scorecard/index.ts";
import { isSealLine, SEAL_ALGORITHM } from "./seal.ts";
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
    seal: z
      .literal(SEAL_ALGORITHM)
      .optional()
      .describe("the file is sealed (--seal-key-env): a seal line follows this header and every trial"),
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

/** The suite's own places: what its fields name, not what decides a trial (the suite file is read as fields). */
const SUITE_PLACES = new Set(["path", "dir", "tasksDir"]);
const digests = new WeakMap<Suite, string>();

/**
 * The digest of a suite and everything that decides its trials: the suite and its tasks as loaded
 * (every field, matrix and defaults applied) with absolute paths made relative to the suite's
 * directory, and what each of those paths holds (lib/core/tree-digest.ts): every file under each
 * task's directory (task.yaml, a local repository, a Harbor task's task.toml, instruction.md,
 * environment/, tests/, solution/), every rubric and settings file. Two checkouts of one commit
 * agree; one byte changed in any of them changes it. Not covered: a remote repository (cloned at
 * run time) and images named by tag. Computed once per loaded suite.
 */
export function suiteDigest(suite: Suite): string {
  const known = digests.get(suite);
  if (known !== undefined) return known;
  const rel = (p: string) => relative(suite.dir, p).split(sep).join("/");
  const places = new Set<string>();
  const text = JSON.stringify(suite, function (this: unknown, key, value) {
    if (typeof value !== "string" || !isAbsolute(value)) return value;
    if (!(this === suite && SUITE_PLACES.has(key))) places.add(value);
    return rel(value);
  });
  // A place inside another is read with it.
  const sorted = [...places].sort();
  const outer = sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}${sep}`)));
  const contents = outer.map((p) => [rel(p), pathDigest(p)]);
  const digest = `sha256:${sha256Hex(JSON.stringify({ suite: text, contents }))}`;
  digests.set(suite, digest);
  return digest;
}

/** The header a shard of `suite` writes first. */
export function shardHeader(
  suite: Suite,
  shard: Shard,
  seed: number,
  local: boolean,
  network: ShardHeader["network"] = "none",
  sealed = false,
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
    ...(sealed ? { seal: SEAL_ALGORITHM } : {}),
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
  // Line numbers in errors stay the file's: the header line and seal lines are blanked, not cut.
  const rest = (nl < 0 ? "" : text.slice(nl + 1))
    .split("\n")
    .map((l) => (isSealLine(l) ? "" : l))
    .join("\n");
  return { header: r.data, shard, trials: parseTrials(`\n${rest}`, path) };
}
