// `verdict` and `verify` (agent_eval.py, reference §5.4-5.5). A run gets one verdict: re-scoring
// after the key is unsealed would show which arm each blind id is, so a second one is exit 3 and
// provenance stays as it was. The rule is the original's; `stats` adds what a reviewer can weigh:
// each arm's pass rate with a 95% Wilson interval, the difference with Newcombe's hybrid score
// interval (method 10, built from the two Wilson intervals), and the runs per arm an 80%-power test
// would need to detect the observed difference (or, when there is none, min_pass_rate over the
// baseline). `verify` checks the sealed manifest (manifest.ts: every file, provenance, the MAC), then
// re-hashes every artifact, the sealed key and the sealed seed; verdict decides only a run that
// verifies, and re-seals it.
import { closeSync, existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pyRepr } from "../compat/py/repr.ts";
import { isPyDict } from "../compat/py/value.ts";
import { ConfinedPathError, openConfined } from "../core/confined.ts";
import { ConfigError, fileProblem } from "../core/errors.ts";
import { writeFileAtomic } from "../core/fsx.ts";
import { sha256FileSync, sha256Hex } from "../core/hash.ts";
import { type Interval, sampleSizeTwoProportions, wilson } from "../stats/index.ts";
import { loadRubric } from "./formats.ts";
import { checkSeal, hashConfined, sealRun } from "./manifest.ts";
import { resolveWhere } from "./options.ts";
import {
  Artifact,
  loadProvenance,
  loadScores,
  loadSealedKey,
  loadSealedOrder,
  type Provenance,
  pyDump,
  type SealedKey,
  type VerdictRecord,
  verdictJson,
} from "./records.ts";

export type VerdictResult = VerdictRecord["result"];
type ArmRate = VerdictRecord["baseline"];

/** Newcombe's hybrid score interval for p2 - p1 from the two Wilson intervals. */
export function differenceInterval(a: Interval, b: Interval): Interval {
  const d = b.estimate - a.estimate;
  const lo = d - Math.sqrt((b.estimate - b.lo) ** 2 + (a.hi - a.estimate) ** 2);
  const hi = d + Math.sqrt((b.hi - b.estimate) ** 2 + (a.estimate - a.lo) ** 2);
  return { estimate: d, lo: Math.max(-1, lo), hi: Math.min(1, hi) };
}

/** Runs per arm for 80% power at alpha 0.05 to tell p1 from p2; null when they are equal. */
export function runsNeeded(p1: number, p2: number): number | null {
  return p1 === p2 ? null : sampleSizeTwoProportions(p1, p2);
}

export interface VerdictStats {
  confidence: 0.95;
  baseline: Interval | null;
  candidate: Interval | null;
  difference: Interval | null;
  power: {
    power: 0.8;
    alpha: 0.05;
    target: "observed" | "min_pass_rate";
    p1: number;
    p2: number;
    runs_per_arm: number | null;
  };
}

export function verdictStats(b: ArmRate, c: ArmRate, minPassRate: number): VerdictStats {
  const wb = b.n > 0 ? wilson(b.passed, b.n) : null;
  const wc = c.n > 0 ? wilson(c.passed, c.n) : null;
  const observed = b.pass_rate !== c.pass_rate;
  const p2 = observed ? c.pass_rate : minPassRate;
  return {
    confidence: 0.95,
    baseline: wb,
    candidate: wc,
    difference: wb && wc ? differenceInterval(wb, wc) : null,
    power: {
      power: 0.8,
      alpha: 0.05,
      target: observed ? "observed" : "min_pass_rate",
      p1: b.pass_rate,
      p2,
      runs_per_arm: runsNeeded(b.pass_rate, p2),
    },
  };
}

/** The original's rule. */
export function decide(
  leaked: boolean,
  perArm: number,
  minRuns: number,
  b: ArmRate,
  c: ArmRate,
  minPassRate: number,
): VerdictResult {
  if (leaked) return "invalid";
  if (perArm < minRuns) return "insufficient";
  if (c.pass_rate < b.pass_rate) return "reject";
  if (c.pass_rate >= minPassRate) return "promote";
  return "hold";
}

function readProvenance(runDir: string): { path: string; prov: Provenance } {
  const path = join(resolve(runDir), "provenance.json");
  try {
    closeSync(openConfined(runDir, "provenance.json").fd); // never parse what a link points at
  } catch (error) {
    // The run directory itself is not there (or not a directory): an input problem (3), not exit 4.
    if (!(error instanceof ConfinedPathError))
      throw new ConfigError(
        `Cannot read promotion run "${resolve(runDir)}": ${fileProblem(error, "directory")}`,
        {
          cause: error,
        },
      );
    if (error.reason !== "missing")
      throw new ConfigError(`Cannot read provenance "${path}": ${error.message}`);
  }
  return { path, prov: loadProvenance(path) };
}

/** Records the one verdict of the run in `runDir` from the graders' `scoresPath`. */
export async function promotionVerdict(opts: {
  runDir: string;
  scores: string;
  repo?: string;
  store?: string;
  lock?: string;
  env?: NodeJS.ProcessEnv;
  /** Decide a run written before sealed manifests (it stays unsealed). */
  legacy?: boolean;
}): Promise<VerdictRecord & { stats: VerdictStats }> {
  const runDir = resolve(opts.runDir);
  const { path: provPath, prov } = readProvenance(runDir);
  if (prov.verdict !== null) throw new ConfigError("verdict already recorded for this run — it is final");
  const listed = listedArtifacts(provPath, prov); // before anything is written
  // Decide only on what the seal vouches for (per_arm, min_runs, leaks, the key); an unsealed run
  // (written before manifests, or stripped of its manifest) only with `legacy`, and it stays unsealed.
  const seal = checkSeal(runDir);
  if (!seal.ok && seal.unsealed && !opts.legacy)
    throw new ConfigError(`run is ${seal.reason} — --legacy decides a run written before manifests`);
  if (!seal.ok && !seal.unsealed) {
    const hint = seal.file === "blind/scores.template.json" ? " — graders fill a copy of the template" : "";
    throw new ConfigError(`run does not verify: ${seal.reason}${hint}`);
  }
  const keyPath = join(runDir, "sealed", "key.json");
  if (!existsSync(keyPath) || sha256FileSync(keyPath) !== prov.key_sha256)
    throw new ConfigError("sealed key does not match key_sha256 in provenance");
  const key = loadSealedKey(keyPath);
  const where = await resolveWhere(opts, opts.env);
  const rubric = loadRubric(where.store, prov.task.id);
  if (sha256FileSync(rubric.path) !== prov.task.rubric_sha256)
    throw new ConfigError(`rubric changed since the run: ${prov.task.id}`);
  const scores = loadScores(opts.scores);
  const bids = Object.keys(key).sort();
  const scored = Object.keys(scores).sort();
  if (bids.length !== scored.length || bids.some((b, i) => b !== scored[i]))
    throw new ConfigError("scores must cover exactly every blind id in the sealed key");
  const ids = rubric.criteria.map((c) => c.id).sort();
  for (const bid of bids) {
    const got = Object.keys(scores[bid]!).sort();
    if (got.length !== ids.length || got.some((id, i) => id !== ids[i]))
      throw new ConfigError(`scores for ${bid} must cover exactly the criteria ${ids.join(", ")}`);
  }
  const arms: Record<string, ArmRate> = {};
  for (const arm of ["baseline", "candidate"]) {
    const runs = bids.filter((b) => key[b]!.arm === arm);
    const passed = runs.filter((b) => runPassed(key, b, scores[b]!, rubric.pass_threshold)).length;
    arms[arm] = { passed, n: runs.length, pass_rate: runs.length ? passed / runs.length : 0 };
  }
  const b = arms.baseline!;
  const c = arms.candidate!;
  const leaked = prov.leakcheck.post_leaks > 0 || Object.values(key).some((r) => r.leak);
  const result = decide(leaked, prov.runs.per_arm, prov.runs.min_runs, b, c, rubric.min_pass_rate);

  const target = join(runDir, "scores.json");
  const bytes = readFileSync(opts.scores);
  const same = existsSync(target) && realpathSync(target) === realpathSync(opts.scores);
  if (!same) writeFileAtomic(target, bytes);
  const verdict = {
    result,
    baseline: b,
    candidate: c,
    pass_threshold: rubric.pass_threshold,
    min_pass_rate: rubric.min_pass_rate,
    scores_sha256: sha256Hex(bytes),
    decided_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    stats: verdictStats(b, c, rubric.min_pass_rate),
  };
  const artifacts = listed.filter((a) => a.path !== "scores.json");
  artifacts.push({ path: "scores.json", sha256: verdict.scores_sha256, bytes: bytes.length });
  artifacts.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  writeFileAtomic(provPath, pyDump({ ...prov, artifacts, verdict: verdictJson(verdict) }));
  if (seal.ok) sealRun(runDir);
  return verdict;
}

/** Provenance's artifacts, each `{path, sha256, bytes}`; another entry is exit 3 (the original: "malformed record"). */
function listedArtifacts(provPath: string, prov: Provenance): Artifact[] {
  return prov.artifacts.map((a, i) => {
    const r = Artifact.safeParse(a);
    if (r.success) return r.data;
    throw new ConfigError(
      `Cannot load provenance "${provPath}": expected {path, sha256, bytes} at artifacts[${i}], got ${JSON.stringify(a) ?? "nothing"}`,
    );
  });
}

function runPassed(key: SealedKey, bid: string, scores: Record<string, boolean>, threshold: number): boolean {
  const r = key[bid]!;
  const values = Object.values(scores);
  const frac = values.length ? values.filter(Boolean).length / values.length : 0;
  return r.exit === 0 && r.checks_passed === true && !r.leak && frac >= threshold;
}

export interface VerifyResult {
  verified: boolean;
  reason: string;
  run_dir: string;
  /** Ours: whether a sealed manifest authenticated the run (false only with `legacy`). */
  sealed: boolean;
  /** Ours: the run-dir-relative file the failure is about (absent on success). */
  file?: string;
}

/**
 * Checks the run directory against its sealed manifest (manifest.ts: every file, provenance, the
 * MAC), then re-hashes provenance's artifacts, the sealed key, the scores and the sealed seed as the
 * original does. A run without sealed/manifest.json (written before manifests, or stripped) fails
 * unless `legacy` is set; then only the original's checks run. A mismatch is a result, not an error.
 */
export function promotionVerify(runDirArg: string, opts: { legacy?: boolean } = {}): VerifyResult {
  const runDir = resolve(runDirArg);
  const { prov } = readProvenance(runDir);
  const seal = checkSeal(runDir);
  const fail = (reason: string, file?: string): VerifyResult => ({
    verified: false,
    reason,
    run_dir: runDir,
    sealed: seal.ok,
    ...(file === undefined ? {} : { file }),
  });
  if (!seal.ok && !(seal.unsealed && opts.legacy))
    return fail(
      seal.unsealed ? `${seal.reason} (--legacy checks a run written before manifests)` : seal.reason,
      seal.file,
    );
  if (prov.artifacts.length === 0) return fail("provenance lists no artifacts");
  for (const a of prov.artifacts) {
    const why = checkArtifact(runDir, a);
    if (why) return fail(why, isPyDict(a) && typeof a.path === "string" ? a.path : undefined);
  }
  const keyPath = join(runDir, "sealed", "key.json");
  if (!isRegular(keyPath) || sha256FileSync(keyPath) !== prov.key_sha256)
    return fail("sealed key does not match key_sha256", "sealed/key.json");
  if (prov.verdict !== null) {
    const scores = join(runDir, "scores.json");
    if (!isRegular(scores) || sha256FileSync(scores) !== prov.verdict.scores_sha256)
      return fail("scores.json does not match the verdict's scores_sha256", "scores.json");
  }
  if (prov.runs.seed_sha256 !== undefined) {
    const orderPath = join(runDir, "sealed", "order.json");
    if (!isRegular(orderPath)) return fail("missing sealed order", "sealed/order.json");
    let order: ReturnType<typeof loadSealedOrder>;
    try {
      order = loadSealedOrder(orderPath);
    } catch {
      return fail("sealed order is malformed", "sealed/order.json");
    }
    if (sha256Hex(`${order.nonce}:${order.seed}`) !== prov.runs.seed_sha256)
      return fail("sealed seed does not match seed_sha256", "sealed/order.json");
  }
  const n = seal.ok ? seal.files : prov.artifacts.length;
  return { verified: true, reason: `${n} artifacts match`, run_dir: runDir, sealed: seal.ok };
}

function isRegular(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The original's checks of one listed entry; an entry that is not an object has no path (`None`). */
function checkArtifact(runDir: string, a: unknown): string | null {
  const path = isPyDict(a) ? a.path : null;
  if (typeof path !== "string" || isAbsolute(path) || path.split(/[\\/]/).includes("..") || path === "")
    return `unsafe artifact path ${pyRepr(path ?? null)}`;
  let got: { sha256: string; bytes: number };
  try {
    got = hashConfined(runDir, path); // no link followed at any component
  } catch {
    return `missing artifact ${path}`;
  }
  const listed = a as Record<string, unknown>;
  if (got.bytes !== listed.bytes || got.sha256 !== listed.sha256) return `artifact changed: ${path}`;
  return null;
}
