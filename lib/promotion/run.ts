// `agent-eval run` (agent_eval.py run, reference §5.3): both arms of a skills/ change, each run by a
// real agent on a held-out task in its own fresh root, blinded, leak-checked, graded objectively,
// sealed and recorded. What a finished run leaves in `<store>/runs/<run-id>/`:
//
//   provenance.json            gi-receipt field names: sha, clean_tree, executor, artifacts
//                              [{path, sha256, bytes}], written_at; arms, task and lock digests,
//                              harness digests, agent (declared + command + pass_env), posture,
//                              isolation (sandbox mechanism, binds, probe), runs (per_arm,
//                              timeout_s, min_runs, seed_supplied, seed_sha256), leakcheck,
//                              key_sha256, verdict (null until `verdict`)
//   sealed/key.json            {<bid>: {arm, index, raw, exit (int | "timeout"), duration_s,
//                              checks_passed, leak, leak_reasons, skipped}}   operator only
//   sealed/order.json          {seed, order: [bids in run order], nonce}      operator only
//   sealed/manifest.json       every other file here {path, sha256, bytes} + provenance's sha256,
//                              HMAC-SHA256 keyed from order.json (manifest.ts); re-sealed by verdict
//   raw/<bid>/                 the run's stage as the agent left it, copied by collect.ts (regular
//                              files and directories only: links, sockets, FIFOs and devices stay
//                              behind, listed in skipped) + out/{gh-calls.jsonl,transcript.txt}
//                              copies + checks.txt (grade output)               operator only
//   checks/<bid>/case.json     {"name": "promotion/<task>", "grade": <rubric checks>}
//   blind/<bid>/               transcript.txt, transcript.stderr.txt, gh-calls.jsonl (scrubbed),
//                              out/<rel> (every UTF-8 out/ file, scrubbed), criteria.json [{id, text}]
//   blind/scores.template.json {<bid>: {<criterion id>: null}} for sorted bids    graders fill a copy
//   scores.json                the graders' scores, once `verdict` ran
// blind/ and checks/ carry one fixed mtime (1980-01-01); graders open blind/ only. Nothing after an
// agent reads or writes its run root but collect.ts's descriptor walk; a link where the layout has a
// directory or file is a leak (the run is invalid), never followed.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { codepointCompare } from "../compat/py/text.ts";
import { ConfigError, UpstreamError, UsageError } from "../core/errors.ts";
import { realpathOr } from "../core/fsx.ts";
import { checkReadable, detectAgentSandbox, resolveAgentInstall } from "../isolation/agent.ts";
import { Rng, shuffle } from "../stats/index.ts";
import { oneRun } from "./agent-run.ts";
import { pathForms, scrubber, stampTree, withPrefixes, writePacket } from "./blind.ts";
import { loadAgentConfig, loadLock, loadPromotionTask, loadRubric } from "./formats.ts";
import { headSha, requireCleanTree, resolveArm, statusLines } from "./git.ts";
import { harnessDigests } from "./harness.ts";
import { checkLocked } from "./lock.ts";
import { sealRun } from "./manifest.ts";
import { refuseIfNeeded, resolveWhere } from "./options.ts";
import { preRunChecks } from "./prerun.ts";
import { buildProvenance, collectArtifacts, isolationEvidence } from "./provenance.ts";
import { ARMS, type KeyRecord, keyJson, writeSorted } from "./records.ts";
import { freshRoot } from "./stage.ts";

export interface RunOptions {
  taskId: string;
  baseline: string;
  candidate: string;
  agentConfig: string;
  runs?: number;
  seed?: number;
  timeoutS?: number;
  sandbox?: boolean;
  repo?: string;
  store?: string;
  lock?: string;
  env?: NodeJS.ProcessEnv;
  /** Called as runs go (the entry shows it on a terminal only). */
  progress?: (line: string) => void;
}

export interface RunResult {
  run_id: string;
  run_dir: string;
  blind_dir: string;
  scores_template: string;
  runs: number;
  leaks: number;
}

const MAX_SEED = 2 ** 32;

function utcStamp(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

const real = (p: string): string => realpathOr(p, resolve(p));

/** Runs the lane; throws ToolError subclasses with the lane's exit codes (2, 3, 4). */
export async function promotionRun(opts: RunOptions): Promise<RunResult> {
  const env = opts.env ?? process.env;
  refuseIfNeeded(env);
  const timeoutS = opts.timeoutS ?? 1800;
  if (opts.runs !== undefined && (!Number.isInteger(opts.runs) || opts.runs < 1))
    throw new UsageError(`--runs must be an integer >= 1, got ${opts.runs}`);
  if (!Number.isFinite(timeoutS) || timeoutS < 1)
    throw new UsageError(`--timeout must be >= 1, got ${timeoutS}`);
  if (opts.seed !== undefined && (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed >= MAX_SEED))
    throw new UsageError(`--seed must be an integer in 0..${MAX_SEED - 1}, got ${opts.seed}`);
  const config = loadAgentConfig(opts.agentConfig);
  const where = await resolveWhere(opts, env);
  const { repo, store } = where;
  await requireCleanTree(repo);
  const head = await headSha(repo);
  const arms = {
    baseline: await resolveArm(repo, opts.baseline),
    candidate: await resolveArm(repo, opts.candidate),
  };
  const harness = harnessDigests();
  const task = loadPromotionTask(store, opts.taskId);
  const rubric = loadRubric(store, opts.taskId);
  const lock = loadLock(where.lock);
  const locked = checkLocked(store, opts.taskId, lock);
  if (!locked.ok) throw new ConfigError(locked.message);
  if (isInside(real(store), join(real(repo), "skills")))
    throw new ConfigError(`the store may not be inside skills/: ${store}`);
  const tmp = real(tmpdir());
  if (isInside(tmp, real(store)) || isInside(tmp, real(repo)))
    throw new UpstreamError(
      `the staging root ${tmp} is inside the store or the repository — set TMPDIR elsewhere`,
    );
  const perArm = opts.runs ?? task.min_runs;
  const seed = opts.seed ?? randomBytes(4).readUInt32BE(0);
  const install = resolveAgentInstall(config.command, process.cwd(), env.PATH ?? "");
  const sandbox = opts.sandbox === false ? null : await detectAgentSandbox();
  if (sandbox) checkReadable(sandbox, install.dirs);

  const fixture = join(task.dir, "fixture_repo");
  const cassettes = join(task.dir, "cassettes.json");
  const fixtureDir = existsSync(fixture) ? fixture : null;
  const cassettesFile = existsSync(cassettes) ? cassettes : null;
  await preRunChecks(repo, arms, task.prompt, rubric, fixtureDir, cassettesFile, locked.rubric_sha256);

  const runId = `${utcStamp(new Date())}-${task.id}-${randomBytes(3).toString("hex")}`;
  const runDir = join(store, "runs", runId);
  for (const d of ["sealed", "raw", "checks", "blind"]) mkdirSync(join(runDir, d), { recursive: true });

  const plan = shuffle(
    ARMS.flatMap((arm) => Array.from({ length: perArm }, (_, i) => ({ arm, index: i + 1 }))),
    new Rng(seed),
  );
  const bids = new Set<string>();
  const order = plan.map((p) => {
    let bid = randomBytes(4).toString("hex");
    while (bids.has(bid)) bid = randomBytes(4).toString("hex");
    bids.add(bid);
    return { ...p, bid };
  });

  const isolation = await isolationEvidence(sandbox, install.dirs, [repo, store, runDir]);
  const key: Record<string, KeyRecord> = {};
  const roots: string[] = [];
  const started = performance.now();
  for (const [i, item] of order.entries()) {
    opts.progress?.(
      `run ${i + 1} of ${order.length}  ${item.bid}  ${((performance.now() - started) / 1000).toFixed(0)}s`,
    );
    const root = freshRoot();
    roots.push(root);
    try {
      key[item.bid] = await oneRun({
        root,
        repo,
        arm: arms[item.arm],
        armName: item.arm,
        index: item.index,
        bid: item.bid,
        task,
        rubric,
        config,
        executable: install.executable,
        installDirs: install.dirs,
        sandbox,
        timeoutS,
        env,
        fixtureDir,
        cassettesFile,
        runDir,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  opts.progress?.(`${order.length} runs done  ${((performance.now() - started) / 1000).toFixed(0)}s`);

  if ((await headSha(repo)) !== head)
    throw new UpstreamError("HEAD moved during the run — provenance would lie");
  if ((await statusLines(repo)).length > 0) throw new UpstreamError("the tree became dirty during the run");

  const sortedBids = [...bids].sort(codepointCompare);
  const keySorted = Object.fromEntries(sortedBids.map((b) => [b, key[b]!]));
  writeSorted(join(runDir, "sealed", "key.json"), keyJson(keySorted));
  const nonce = randomBytes(16).toString("hex");
  writeSorted(join(runDir, "sealed", "order.json"), { seed, order: order.map((o) => o.bid), nonce });

  const literals = new Set<string>([
    ...withPrefixes([
      arms.baseline.sha,
      arms.baseline.skills_tree,
      arms.candidate.sha,
      arms.candidate.skills_tree,
    ]),
    ...pathForms([...roots, runDir, store, repo]),
    ...roots.map((r) => r.split("/").at(-1) ?? ""),
    rubric.canary,
  ]);
  const scrub = scrubber(literals, [arms.baseline.ref, arms.candidate.ref]);
  const blindDir = join(runDir, "blind");
  for (const bid of sortedBids) writePacket(blindDir, bid, join(runDir, "raw", bid), rubric.criteria, scrub);
  const template = Object.fromEntries(
    sortedBids.map((b) => [b, Object.fromEntries(rubric.criteria.map((c) => [c.id, null]))]),
  );
  const templatePath = join(blindDir, "scores.template.json");
  writeSorted(templatePath, template);
  stampTree(blindDir);
  stampTree(join(runDir, "checks"));

  const artifacts = collectArtifacts(runDir, sortedBids);
  const leaks = Object.values(key).filter((r) => r.leak).length;
  const provenance = buildProvenance({
    head,
    harness,
    task,
    locked,
    lock: where.lock,
    repo,
    arms,
    config,
    sandboxed: sandbox !== null,
    isolation,
    perArm,
    timeoutS,
    seed,
    seedSupplied: opts.seed !== undefined,
    nonce,
    leaks,
    runDir,
    artifacts,
  });
  writeSorted(join(runDir, "provenance.json"), provenance);
  sealRun(runDir); // sealed/manifest.json: every file above and provenance, under the sealed seed's MAC
  return {
    run_id: runId,
    run_dir: runDir,
    blind_dir: blindDir,
    scores_template: templatePath,
    runs: order.length,
    leaks,
  };
}
