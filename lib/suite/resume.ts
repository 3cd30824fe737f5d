// The trials JSONL file of a suite run: one Trial a line, appended as each trial finishes, so a crash
// loses at most the trials in flight. `--resume` reads it back: a torn last line (the crash) is
// dropped, infrastructure failures are dropped so they run again, a later line for the same trial
// wins, and a trial that is no job of the suite refuses the resume (it is another suite's file).
// Without --resume an existing file is refused with one line, never silently overwritten. A shard's
// file keeps its header line (shard.ts) through a resume, and resumes only under the same header; a
// sealed one (seal.ts) only with its key: its seals are checked, what follows the last one is dropped
// as unfinished, and the file is written back sealed anew.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { ensureDir, writeFileAtomic } from "../core/fsx.ts";
import { DATA, readInputIfAny } from "./input.ts";
import type { Trial } from "./scorecard/index.ts";
import { checkSeals, isSealLine, type SealChain, type SealKey } from "./seal.ts";
import { headerLine, parseTrialsText, type ShardHeader, trialKey } from "./shard.ts";

/** The key of a trial (shard.ts: the same key deals a shard's trials). */
export { trialKey };

/** A sealed shard's seal: its key (to check what is resumed) and the chain the run writes with. */
export interface TrialsSeal {
  key: SealKey;
  chain: SealChain;
}

/**
 * The finished trials in `path` that a resumed run keeps (none when the file does not exist). `jobs`
 * are the keys of the suite's (or the shard's) jobs. The file is rewritten (atomically) to hold exactly
 * those, after `header` for a shard (sealed through `seal` when given); a file of another shard,
 * sharded vs not, or sealed vs not, is refused, and so is a sealed file whose seals do not match.
 */
export function resumeTrials(
  path: string,
  jobs: ReadonlySet<string>,
  suite: string,
  header?: ShardHeader,
  seal?: TrialsSeal,
): Map<string, Trial> {
  const kept = new Map<string, Trial>();
  // Regular, capped, not a link: a retried pod reads what a shared volume holds.
  const text = readInputIfAny(path, "trials", DATA);
  if (text === undefined) {
    // A first attempt under --resume (a retried pod, a CI re-run): the shard's header still goes
    // first, or merge would refuse the file as no shard's.
    if (header !== undefined) startTrials(path, header, seal?.chain);
    return kept;
  }
  // A crash can leave the last line unterminated and cut: it is not a finished trial.
  const end = text.lastIndexOf("\n");
  let whole = end < 0 ? "" : text.slice(0, end + 1);
  const found = parseTrialsText(whole.slice(0, whole.indexOf("\n") + 1), path).header;
  checkHeader(path, found, header, whole.trim() === "" ? 0 : 1);
  // Only what its seals cover is kept: a line after the last seal was never finished (or was added).
  if (found?.seal !== undefined && seal !== undefined)
    whole = whole.slice(0, checkSeals(whole, seal.key, `Cannot resume from "${path}": `).end);
  const parsed = parseTrialsText(whole, path);
  // Each kept trial is written back as the bytes it was read from: a number JSON.parse cannot hold
  // exactly (the newer original's uint64 `seed`) survives the resume unchanged.
  const lines = whole
    .split("\n")
    .filter((l, i) => l.trim() !== "" && !(i === 0 && parsed.header) && !isSealLine(l));
  const raw = new Map<string, string>();
  parsed.trials.forEach((t, i) => {
    const key = trialKey(t);
    if (!jobs.has(key))
      throw new ConfigError(
        `Cannot resume from "${path}": trial ${i + 1} (task "${t.task}", variant "${t.variant}", repeat ${t.repeat}) is no job of suite ${suite}`,
      );
    kept.delete(key);
    raw.delete(key);
    if (t.infra === undefined) {
      kept.set(key, t);
      raw.set(key, lines[i]!);
    }
  });
  const head = header === undefined ? "" : headerLine(header);
  const body = [...raw.values()].map((l) => `${l}\n`);
  const sealed = seal?.chain;
  writeFileAtomic(path, sealed ? [head, ...body].map((b) => sealed.seal(b)).join("") : head + body.join(""));
  return kept;
}

/** Refuses to resume a file written under another header (or none) than this run's. */
function checkHeader(path: string, found: ShardHeader | undefined, want: ShardHeader | undefined, n: number) {
  const cannot = (why: string) => new ConfigError(`Cannot resume from "${path}": ${why}`);
  if (found === undefined) {
    if (want !== undefined && n > 0)
      throw cannot(`it is an unsharded run's trials file, not shard ${want.shard}'s`);
    return;
  }
  if (want === undefined)
    throw cannot(`it is shard ${found.shard}'s trials file: resume it with --shard ${found.shard}`);
  if (found.seal !== want.seal)
    throw cannot(
      found.seal === undefined
        ? "it is not sealed: a sealed run resumes only a sealed file (run without --seal-key-env, or start over)"
        : "it is sealed: resume it with --seal-key-env and the key it was sealed with",
    );
  for (const key of ["shard", "suite", "digest", "seed", "runner", "network"] as const)
    if (found[key] !== want[key])
      throw cannot(
        `its shard header has ${key} ${JSON.stringify(found[key])}, this run ${JSON.stringify(want[key])}`,
      );
}

/** The one line for a trials file a run without --resume would have overwritten. */
export function trialsFileExists(path: string): ConfigError {
  return new ConfigError(
    `trials file "${path}" exists: --resume continues it; to start over remove it, or write another with --trials FILE`,
  );
}

/** Refuses, before anything runs, to start over an existing trials file (--resume continues it). */
export function checkTrialsFile(path: string, resume: boolean): void {
  if (!resume && existsSync(path)) throw trialsFileExists(path);
}

/**
 * Creates `path` for a run without --resume: empty, or holding only a shard's header line (and its
 * seal with `chain`). An existing file is refused, never overwritten.
 */
export function startTrials(path: string, header?: ShardHeader, chain?: SealChain): void {
  ensureDir(dirname(path));
  const head = header === undefined ? "" : headerLine(header);
  try {
    writeFileSync(path, chain && head ? chain.seal(head) : head, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw trialsFileExists(path);
    throw error;
  }
}

/** Appends one finished trial as one line (and its seal with `chain`, in the same write). */
export function appendTrial(path: string, trial: Trial, chain?: SealChain): void {
  const line = `${JSON.stringify(trial)}\n`;
  appendFileSync(path, chain ? chain.seal(line) : line);
}
