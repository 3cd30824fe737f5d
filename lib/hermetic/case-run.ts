// One case, the way run_eval.sh ran it: refuse a case without case.json or subject.sh and a bad
// repo_scripts list (exit 2) before any subject starts; lay out the work directory; print the
// header; create the call log empty; run subject.sh sandboxed with only the EVAL_* environment, in
// one sandbox invocation that first runs the isolation probe (lib/isolation/sandbox/proof.ts: it execs the
// subject only when isolation held); a failing subject's code is the case's code; publish the call
// log as OUT/gh-calls.jsonl (replacing, never following, anything there); record the isolation
// proof in OUT/sandbox.json; grade in-process (grade's code; a `command` assertion runs in the
// subject's sandbox, OUT its directory), bounded by the grading timeout. Every
// file read back is capped (--max-file-bytes) and never a FIFO. The work directory is removed
// afterwards; --keep copies OUT and the logs out first.
import { readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { basename, join, resolve } from "node:path";
import { pyStr } from "../compat/py/repr.ts";
import { pyTruthy } from "../compat/py/value.ts";
import { ConfigError, messageOf } from "../core/errors.ts";
import { type ProcResult, run } from "../core/proc.ts";
import { useColor } from "../core/tty.ts";
import { stampSource, writeCaseIndex } from "../gh/shim/case-index.ts";
import { type GhStage, installGh } from "../gh/stage.ts";
import { readCaseJson } from "../grade/case.ts";
import { MAX_FILE_BYTES } from "../grade/out.ts";
import { renderGrade } from "../grade/render.ts";
import type { GradeResult } from "../grade/result.ts";
import { gradeCase } from "../grade/runner.ts";
import type { IsolationProbe, IsolationProof, Sandbox, SandboxSpec } from "../isolation/sandbox/index.ts";
import { linksLeaving, outIsDirectory, publishCallLog, replaceInOut, showCaseCassette } from "./collect.ts";
import { refusalWords } from "./copy.ts";
import { keepRun } from "./keep.ts";
import { layOut, makeWorkRoot, subjectEnv, type Work } from "./layout.ts";
import { BufferSink, type OutputChunk, outShown, type Sink } from "./output.ts";
import { checkRepoScripts, copyRepoScripts, repoScriptsRule } from "./scripts.ts";

const RULE = "┄".repeat(20);

/** What every case of one invocation shares: the sandbox (detected once), the staged gh, options. */
export interface RunContext {
  sandbox: Sandbox;
  /** lib/isolation/sandbox/index.ts prepareWorkDir: hands the work directory to the subject's uid. */
  prepare: (sandbox: Sandbox, workDir: string) => void;
  /** lib/isolation/sandbox/index.ts openProbe: arms the isolation probe that runs just before the subject. */
  probe: (sandbox: Sandbox, spec: Omit<SandboxSpec, "command">) => Promise<IsolationProbe>;
  gh: GhStage;
  /** The repository root repo_scripts are read from and grading runs in. */
  repoRoot: string;
  /** --scripts-root: repo_scripts may name any file under this folder of repoRoot (default: the original's rule). */
  scriptsRoot?: string;
  /** Keep each case's OUT and logs under <keep>/<case name>/. */
  keep?: string;
  /** Kill the subject after this long (0: never). */
  timeoutMs?: number;
  /** Give up grading after this long (default GRADE_TIMEOUT_MS). */
  gradeTimeoutMs?: number;
  /** The cap on every file read back from WORK or OUT, published or kept (default MAX_FILE_BYTES). */
  maxFileBytes?: number;
}

/** How long grading one case may take by default (--grade-timeout). */
export const GRADE_TIMEOUT_MS = 120_000;

/** How one case ended. */
export type CaseStage = "refused" | "subject" | "isolation" | "grade" | "done";

/** The outcome of one case: its exit code, where it stopped, its grade and its whole output. */
export interface CaseOutcome {
  name: string;
  caseDir: string;
  exitCode: number;
  stage: CaseStage;
  /** The ✗ line that explains a non-zero exit, without the mark. */
  message: string | null;
  grade: GradeResult | null;
  sandbox: IsolationProof | null;
  durationMs: number;
  subjectMs: number | null;
  kept: string | null;
  chunks: OutputChunk[];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The exit code of a finished child: its code, 128+N for a signal. */
function childCode(exitCode: number | null, signal: string | null): number {
  if (exitCode !== null) return exitCode;
  const n = signal ? (osConstants.signals as Record<string, number>)[signal] : undefined;
  return 128 + (n ?? 0);
}

/** Why a proof that is not ok does not count, in one line. */
export function proofProblem(proof: IsolationProof): string {
  if (proof.problems?.length) return proof.problems.join("; ");
  if (!proof.egress.blocked)
    return `egress to ${proof.egress.target} was not blocked (${proof.egress.detail})`;
  const up = proof.interfaces.filter((i) => i !== "lo");
  if (up.length) return `network interfaces other than lo inside: ${up.join(", ")}`;
  return `the ${proof.mechanism} proof did not hold (namespaces: ${proof.namespaces.join(", ") || "none"}, uid ${proof.uid})`;
}

/** Work directories in use: removed on exit too, so an interrupted run (the entry exits on SIGINT) leaves none. */
const liveWork = new Set<string>();
let exitHooked = false;

function track(root: string): void {
  liveWork.add(root);
  if (exitHooked) return;
  exitHooked = true;
  process.on("exit", () => {
    for (const dir of liveWork) rmSync(dir, { recursive: true, force: true });
  });
}

/**
 * Why a folder given to run-eval held no case, when it is none (no subject.sh either): it is empty,
 * or no folder below it holds a case.json (many.ts's findCases looked).
 */
function noCaseHint(dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  if (names.includes("subject.sh")) return undefined;
  const what = "a case is a directory holding case.json and subject.sh";
  return names.length === 0 ? `the folder is empty: ${what}` : `no case here or in any folder below: ${what}`;
}

/** Runs the case in `caseArg` and returns its outcome; output goes to `sink` (and the outcome). */
export async function runCase(caseArg: string, ctx: RunContext, sink?: Sink): Promise<CaseOutcome> {
  const started = performance.now();
  const buf = new BufferSink(sink);
  let caseDir = resolve(caseArg);
  try {
    caseDir = realpathSync(caseDir);
  } catch {
    // reported below as a missing case.json
  }
  const outcome: CaseOutcome = {
    name: basename(caseDir),
    caseDir,
    exitCode: 0,
    stage: "refused",
    message: null,
    grade: null,
    sandbox: null,
    durationMs: 0,
    subjectMs: null,
    kept: null,
    chunks: buf.chunks,
  };
  const finish = (code: number, stage: CaseStage, message: string | null): CaseOutcome => {
    if (message !== null) buf.err(`✗ ${message}\n`);
    Object.assign(outcome, { exitCode: code, stage, message, durationMs: performance.now() - started });
    return outcome;
  };

  const casePath = join(caseDir, "case.json");
  if (!isFile(casePath)) {
    finish(2, "refused", `missing case.json in ${caseDir}`);
    // run_eval.sh's line first; then, for a folder that is no case at all, what run-eval looked for.
    const hint = noCaseHint(caseDir);
    if (hint !== undefined) buf.err(`  ${hint}\n`);
    return outcome;
  }
  if (!isFile(join(caseDir, "subject.sh"))) return finish(2, "refused", `missing subject.sh in ${caseDir}`);
  let data: Record<string, unknown>;
  try {
    data = readCaseJson(caseDir).data;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return finish(2, "refused", messageOf(error)); // names the file, and the line and column
  }
  if (pyTruthy(data.name)) outcome.name = pyStr(data.name);
  const scripts = checkRepoScripts(data, ctx.repoRoot, ctx.scriptsRoot);
  if (!scripts.ok) {
    for (const line of scripts.problems) buf.err(`${line}\n`);
    finish(2, "refused", `invalid repo_scripts in ${casePath}`);
    // run_eval.sh's lines first, then the rule the entries broke.
    buf.err(`${repoScriptsRule(ctx.scriptsRoot)}\n`);
    return outcome;
  }

  const container = makeWorkRoot();
  track(container);
  try {
    // WORK sits one level down in a directory the subject does not own, so it cannot rename WORK
    // itself and leave a link in its place for the runner to follow.
    const root = join(container, "work");
    const source = stampSource(join(caseDir, "cassettes.json")); // before the copy: see case-index.ts
    const work = layOut(root, caseDir);
    copyRepoScripts(ctx.repoRoot, scripts.sources, work.scripts);
    installGh(ctx.gh, work.bin);
    buf.out(
      `◆ eval ${outcome.name}\n${RULE}\n  case: ${caseDir}\n  out:  ${outShown(work.out, ctx.keep)}\n  gh:   ${work.gh}\n`,
    );
    writeFileSync(work.callLog, "");
    ctx.prepare(ctx.sandbox, root);
    // The copy is final (prepare's chown set its stamps last): index it once for all gh calls, bound
    // read-only (sandbox-exec cannot bind, so there the shim parses; lib/gh/shim/case-index.ts).
    const index =
      ctx.sandbox.mechanism === "sandbox-exec" ? null : writeCaseIndex(work.cassettes, { source });
    const binds = [{ host: ctx.gh.dir, inside: ctx.gh.dir }];
    if (index) binds.push({ host: index, inside: index });
    return await runPrepared({ work, caseDir, ctx: { ...ctx, binds }, buf, outcome, finish });
  } finally {
    rmSync(container, { recursive: true, force: true });
    liveWork.delete(container);
  }
}

/** A case's context once laid out: the read-only binds every sandbox of the case gets. */
type CaseContext = RunContext & { binds: { host: string; inside: string }[] };

/** What the subject and grading stages of one laid-out case share. */
interface Stage {
  work: Work;
  caseDir: string;
  ctx: CaseContext;
  buf: BufferSink;
  outcome: CaseOutcome;
  finish: (code: number, stage: CaseStage, message: string | null) => CaseOutcome;
}

async function runPrepared(stage: Stage): Promise<CaseOutcome> {
  const { work, caseDir, ctx, buf, outcome, finish } = stage;
  const spec = {
    workDir: work.root,
    cwd: work.repo,
    env: subjectEnv(work),
    roBinds: ctx.binds,
  };
  const probe = await ctx.probe(ctx.sandbox, spec);
  let subject: ProcResult;
  try {
    const command = probe.command(["bash", join(work.case, "subject.sh")]);
    const wrapped = ctx.sandbox.wrap({ ...spec, command });
    subject = await run(wrapped.argv, { env: wrapped.env, cwd: work.repo, timeoutMs: ctx.timeoutMs ?? 0 });
  } catch (error) {
    probe.close();
    throw error;
  }
  // The probe's report is the head of stdout; what follows it is the subject's own output.
  const verdict = probe.judge(subject);
  const proof = verdict.proof;
  outcome.subjectMs = verdict.started ? subject.durationMs : null;
  outcome.sandbox = proof;
  buf.out(showCaseCassette(verdict.stdout, work.cassettes, caseDir));
  buf.err(showCaseCassette(subject.stderr, work.cassettes, caseDir));
  const logs = { stdout: verdict.stdout, stderr: subject.stderr };

  // From here on the runner reads what the subject left behind (lib/hermetic/collect.ts).
  const outOk = outIsDirectory(work.out);
  const cap = ctx.maxFileBytes ?? MAX_FILE_BYTES;
  if (outOk) {
    const refused = publishCallLog(work.root, basename(work.callLog), work.out, cap);
    if (refused) buf.err(`⚠ call log not published: ${work.callLog}: ${refusalWords(refused)}\n`);
    replaceInOut(work.out, "sandbox.json", `${JSON.stringify(proof, null, 2)}\n`);
  }
  const leaving = outOk ? linksLeaving(work.out) : [];

  let result: CaseOutcome;
  const code = childCode(subject.exitCode, subject.signal);
  if (!verdict.started) {
    result = finish(2, "isolation", `isolation not shown, subject not started: ${proofProblem(proof)}`);
  } else if (subject.timedOut) {
    result = finish(124, "subject", `subject.sh timed out after ${Math.round((ctx.timeoutMs ?? 0) / 1000)}s`);
  } else if (code !== 0) {
    result = finish(code, "subject", `subject.sh exited ${code}`);
  } else {
    buf.out("  ✓ subject completed\n");
    if (!outOk) result = finish(2, "subject", `subject.sh replaced OUT (${work.out} is not a directory)`);
    else if (leaving.length)
      result = finish(2, "subject", `subject.sh left links that leave OUT: ${leaving.join(", ")}`);
    else if (!proof.ok) result = finish(2, "isolation", `isolation not shown: ${proofProblem(proof)}`);
    else result = await grade(stage);
  }
  if (ctx.keep) {
    const kept = keepRun(
      ctx.keep,
      {
        name: outcome.name,
        caseDir: outcome.caseDir,
        out: outOk ? work.out : null,
        workRoot: work.root,
        callLog: basename(work.callLog),
        logs: { ...logs, run: buf.text() },
      },
      cap,
    );
    outcome.kept = kept.dir;
    for (const note of kept.notes) buf.err(`${note}\n`);
    if (kept.dir) buf.out(`  kept: ${kept.dir}\n`);
  }
  return result;
}

async function grade(stage: Stage): Promise<CaseOutcome> {
  const { work, caseDir, ctx, buf, outcome, finish } = stage;
  let graded: GradeResult;
  const limit = ctx.gradeTimeoutMs ?? GRADE_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ConfigError(`grading timed out after ${limit / 1000}s (--grade-timeout)`)),
      limit,
    );
  });
  try {
    const exec = (argv: string[]) => {
      // a `command` assertion runs as the subject ran: same sandbox and environment, OUT as its cwd
      const spec = { workDir: work.root, cwd: work.out, env: subjectEnv(work), command: argv };
      const wrapped = ctx.sandbox.wrap({ ...spec, roBinds: ctx.binds });
      const cap = ctx.maxFileBytes ?? MAX_FILE_BYTES;
      return run(wrapped.argv, { env: wrapped.env, cwd: work.repo, timeoutMs: limit, maxOutputBytes: cap });
    };
    const opts = { repoRoot: ctx.repoRoot, cwd: ctx.repoRoot, maxFileBytes: ctx.maxFileBytes, exec };
    graded = await Promise.race([gradeCase(caseDir, work.out, opts), timedOut]);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    buf.err(`✗ ${messageOf(error)}\n`);
    return finish(2, "grade", `eval failed: ${outcome.name}`);
  } finally {
    clearTimeout(timer);
  }
  outcome.grade = graded;
  buf.out(renderGrade(graded, { color: useColor(process.env, process.stdout) }));
  if (!graded.passed) return finish(1, "grade", `eval failed: ${outcome.name}`);
  buf.out(`✓ eval passed: ${outcome.name}\n`);
  return finish(0, "done", null);
}
