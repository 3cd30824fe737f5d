// `agent-eval suite merge`: the shards' trials files of one suite back into the whole run. Every file
// must be a shard (header, shard.ts) of this suite as loaded now (name and digest), with one seed, one
// runner and one N; every K from 0 to N-1 exactly once; each trial a job of its own shard, once; each
// shard complete; given a seal key, every file sealed under it (seal.ts), every line covered by a seal
// that matches. Anything else is refused with one line naming the file (exit 2 at the edge). The
// trials are put back in job order, infrastructure failures included, and scored by run.ts's
// scoreSuite: the scorecard depends on the set of trials only, never on which shard ran what or when.
import { dirname, resolve } from "node:path";
import { ConfigError, messageOf } from "../core/errors.ts";
import { type Shard, shardLabel } from "../core/shard.ts";
import { DATA, inputProblem, readInputBytes } from "./input.ts";
import { scoreSuite, suiteJobs } from "./run.ts";
import type { Scorecard, Trial } from "./scorecard/index.ts";
import { checkSeals, type SealKey } from "./seal.ts";
import { dealJobs, jobId, parseTrialsText, type ShardHeader, suiteDigest, trialKey } from "./shard.ts";
import type { Suite } from "./suite.ts";

/** Every merge refusal exits 2 (originals.md: a refused invocation), whatever its cause. */
export const MERGE_EXIT = 2;

function refuse(message: string, cause?: unknown): ConfigError {
  return new ConfigError(message, { exitCode: MERGE_EXIT, ...(cause === undefined ? {} : { cause }) });
}

/** The whole run rebuilt: trials in job order, the directory each came from (its log's base), the scorecard. */
export interface MergedRun {
  trials: Trial[];
  /** Each trial's trials-file directory (absolute), index for index: a trial's `log` is relative to it. */
  bases: string[];
  scorecard: Scorecard;
  seed: number;
  shards: number;
  /** The shards' --network (what the whole run's scorecard says of internet access depends on it). */
  network: ShardHeader["network"];
}

interface Seen {
  file: string;
  header: ShardHeader;
  shard: Shard;
}

/**
 * Merges `files` (each a shard's trials file) of `suite`; `seed`, when given, must be the shards'.
 * With `key` every file must be sealed under it; without, seals are not read (consistency only).
 */
export function mergeShards(suite: Suite, files: readonly string[], seed?: number, key?: SealKey): MergedRun {
  if (files.length === 0)
    throw refuse("Cannot merge: no trials files given (agent-eval suite merge SUITE.yaml TRIALS...)");
  const jobs = suiteJobs(suite);
  const index = new Map(jobs.map((j, i) => [jobId(j), i]));
  const digest = suiteDigest(suite);
  const trials = new Array<Trial | undefined>(jobs.length);
  const bases = new Array<string>(jobs.length);
  const byK = new Map<number, Seen>();
  let first: Seen | undefined;
  // Each job's shard, dealt once (by the first file's N: every other N is refused before it is used).
  let deal: number[] = [];
  let owned: number[][] = [];
  for (const file of files) {
    const cannot = (why: string) => refuse(`Cannot merge "${file}": ${why}`);
    let text: string;
    try {
      // A shard's file is what a machine we do not control sent: regular, capped, not a link.
      text = readInputBytes(file, DATA).toString("utf8");
    } catch (error) {
      throw cannot(inputProblem(error, DATA.maxBytes));
    }
    let parsed: ReturnType<typeof parseTrialsText>;
    try {
      parsed = parseTrialsText(text, file);
      if (key !== undefined && parsed.header !== undefined) sealed(text, file, parsed.header, key);
    } catch (error) {
      throw refuse(messageOf(error), error);
    }
    const { header, shard } = parsed;
    if (header === undefined || shard === undefined)
      throw cannot("no shard header: not the trials file of an `agent-eval suite --shard K/N` run");
    if (header.suite !== suite.name) throw cannot(`a shard of suite "${header.suite}", not "${suite.name}"`);
    if (header.digest !== digest)
      throw cannot(
        `suite "${suite.name}" (or a task) changed since the shard ran (digest ${header.digest}, now ${digest})`,
      );
    const ref = first ?? { file, header, shard };
    if (seed !== undefined && header.seed !== seed) throw cannot(`seed ${header.seed}, not --seed ${seed}`);
    if (header.seed !== ref.header.seed)
      throw cannot(`seed ${header.seed}, but "${ref.file}" has ${ref.header.seed}`);
    for (const key of ["runner", "network"] as const)
      if (header[key] !== ref.header[key])
        throw cannot(`${key} ${header[key]}, but "${ref.file}" has ${ref.header[key]}`);
    if (shard.count !== ref.shard.count)
      throw cannot(
        `shard ${header.shard} is one of ${shard.count}, but "${ref.file}" is one of ${ref.shard.count}`,
      );
    const twin = byK.get(shard.index);
    if (twin) throw cannot(`shard ${header.shard} again (also "${twin.file}")`);
    if (first === undefined) {
      deal = dealJobs(jobs, shard.count);
      owned = Array.from({ length: shard.count }, () => []);
      deal.forEach((k, i) => {
        owned[k]!.push(i);
      });
    }
    first = ref;
    byK.set(shard.index, { file, header, shard });
    const base = dirname(resolve(file));
    for (const t of parsed.trials) {
      const at = index.get(trialKey(t));
      const what = `trial (task "${t.task}", variant "${t.variant}", repeat ${t.repeat})`;
      if (at === undefined || deal[at] !== shard.index)
        throw cannot(`${what} is no job of shard ${header.shard} of suite ${suite.name}`);
      if (trials[at] !== undefined) throw cannot(`${what} twice`);
      trials[at] = t;
      bases[at] = base;
    }
    const own = owned[shard.index]!;
    const lacking = own.filter((i) => trials[i] === undefined);
    if (lacking.length > 0) {
      const j = jobs[lacking[0]!]!;
      throw cannot(
        `shard ${header.shard} lacks ${lacking.length} of its ${own.length} trials (first: ${j.task.id}/${j.variant.name}#${j.repeat}): finish it with --resume`,
      );
    }
  }
  const count = first!.shard.count;
  const missing: string[] = [];
  for (let k = 0; k < count; k++) if (!byK.has(k)) missing.push(shardLabel({ index: k, count }));
  if (missing.length > 0)
    throw refuse(
      `Cannot merge: shard${missing.length > 1 ? "s" : ""} ${missing.join(", ")} missing (given ${byK.size} of ${count})`,
    );
  const all = trials as Trial[];
  const runSeed = first!.header.seed;
  // Scoring failures (a variant with nothing scored) are the whole run's own errors, not refusals.
  const scorecard = scoreSuite(suite, all, { seed: runSeed, local: first!.header.runner === "local" });
  return { trials: all, bases, scorecard, seed: runSeed, shards: count, network: first!.header.network };
}

/** Refuses (ConfigError, one line) a file not sealed, a seal that does not match, a line after the last seal. */
function sealed(text: string, file: string, header: ShardHeader, key: SealKey): void {
  const cannot = `Cannot merge "${file}": `;
  if (header.seal === undefined)
    throw new ConfigError(
      `${cannot}not sealed (its shard ran without --seal-key-env), and this merge checks seals`,
    );
  const { unsealed } = checkSeals(text, key, cannot);
  if (unsealed > 0)
    throw new ConfigError(`${cannot}${unsealed} line(s) after its last seal: added after its shard wrote it`);
}
