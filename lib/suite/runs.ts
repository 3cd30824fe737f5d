// Where a suite run keeps what it writes when no --trials FILE is given: its own folder in the runs
// folder beside the suite, `<suite dir>/runs/<suite>-<UTC time>/` (`-shard-K-of-N` for a shard, `-2`
// for a second run in the same second), holding trials.jsonl, the trial logs beside it (trials.logs/),
// and at the end report.html, then scorecard.json, which marks the run finished. So running a suite
// twice just works, and `--resume` continues the latest unfinished run of that suite (and shard). The
// runs folder gets a .gitignore of `*` when it is made: runs are results, not sources. It knows no
// trial format; cmd.ts decides what goes in the folder.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Shard } from "../core/shard.ts";
import { safeName } from "./run.ts";

/** The runs folder of the suite file at `suitePath`. */
export function runsFolder(suitePath: string): string {
  return join(dirname(resolve(suitePath)), "runs");
}

/** The file in a run folder that marks it finished (written last). */
export const FINISHED = "scorecard.json";

/** A run's folder and its files. */
export interface RunFolder {
  dir: string;
  trials: string;
  report: string;
  scorecard: string;
  /** True when it was found by --resume, false when made for this run. */
  resumed: boolean;
}

function files(dir: string, resumed: boolean): RunFolder {
  return {
    dir,
    trials: join(dir, "trials.jsonl"),
    report: join(dir, "report.html"),
    scorecard: join(dir, FINISHED),
    resumed,
  };
}

/** `20261205T012233Z`: UTC, to the second, sorting as it reads. */
export function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

const shardPart = (shard?: Shard) => (shard ? `-shard-${shard.index}-of-${shard.count}` : "");

/** The names of this suite's (and shard's) run folders, oldest first. */
function runsOf(folder: string, suite: string, shard?: Shard): string[] {
  if (!existsSync(folder)) return [];
  const name = new RegExp(`^${literal(safeName(suite))}-\\d{8}T\\d{6}Z${literal(shardPart(shard))}(-\\d+)?$`);
  const order = (n: string) => n.replace(/-(\d+)$/, (_, k: string) => `-${k.padStart(6, "0")}`);
  return readdirSync(folder)
    .filter((n) => name.test(n))
    .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The latest run of `suite` (and `shard`) in `folder` that holds trials but no scorecard.json yet. */
export function latestUnfinished(folder: string, suite: string, shard?: Shard): RunFolder | undefined {
  const latest = runsOf(folder, suite, shard)
    .reverse()
    .find((n) => existsSync(join(folder, n, "trials.jsonl")) && !existsSync(join(folder, n, FINISHED)));
  return latest === undefined ? undefined : files(join(folder, latest), true);
}

/** Makes a new run folder for `suite` (and `shard`) in `folder`, never one that exists. */
export function newRunFolder(folder: string, suite: string, shard?: Shard, at = new Date()): RunFolder {
  if (!existsSync(folder)) {
    mkdirSync(folder, { recursive: true });
    // Runs are results: a repository that holds the suite does not pick them up.
    writeFileSync(join(folder, ".gitignore"), "*\n", { flag: "wx" });
  }
  const base = `${safeName(suite)}-${stamp(at)}${shardPart(shard)}`;
  for (let n = 1; ; n++) {
    const dir = join(folder, n === 1 ? base : `${base}-${n}`);
    try {
      mkdirSync(dir);
      return files(dir, false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/**
 * The run folder of a run without --trials: with `resume`, the latest unfinished one of this suite
 * (and shard), else (and when there is none) a new one.
 */
export function runFolderFor(
  suitePath: string,
  suite: string,
  opts: { resume: boolean; shard?: Shard },
): RunFolder {
  const folder = runsFolder(suitePath);
  return (
    (opts.resume ? latestUnfinished(folder, suite, opts.shard) : undefined) ??
    newRunFolder(folder, suite, opts.shard)
  );
}
