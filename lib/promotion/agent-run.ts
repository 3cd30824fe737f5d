// One run of `agent-eval run` (reference §5.3 steps 10-13): stage a fresh root, start the agent
// (sandboxed, its stdout and stderr as the transcripts, killed with its group at the timeout), then
// collect its root into a private copy (collect.ts), scan the copy for leaks, keep it as raw/<bid>/
// and grade the rubric checks on its out/. Returns the run's sealed record.
import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { mkdirConfined, writeConfined } from "../core/confined-write.ts";
import { UpstreamError } from "../core/errors.ts";
import { run as runProc } from "../core/proc.ts";
import { renderGrade } from "../grade/render.ts";
import { gradeCase } from "../grade/runner.ts";
import type { Sandbox } from "../isolation/sandbox/index.ts";
import { prepareWorkDir } from "../isolation/sandbox/index.ts";
import { scanRunRoot } from "../leak/index.ts";
import { collectRunRoot } from "./collect.ts";
import type { AgentConfig, loadPromotionTask, loadRubric, PLACEHOLDERS } from "./formats.ts";
import type { Arm } from "./git.ts";
import { type ArmName, type KeyRecord, pyDump } from "./records.ts";
import { type RunRoot, stageRun } from "./stage.ts";

type Rubric = ReturnType<typeof loadRubric>;

export interface OneRun {
  root: string;
  repo: string;
  arm: Arm;
  armName: ArmName;
  index: number;
  bid: string;
  task: ReturnType<typeof loadPromotionTask>;
  rubric: Rubric;
  config: AgentConfig;
  executable: string;
  installDirs: readonly string[];
  sandbox: Sandbox | null;
  timeoutS: number;
  env: NodeJS.ProcessEnv;
  fixtureDir: string | null;
  cassettesFile: string | null;
  runDir: string;
}

function agentEnv(p: RunRoot, config: AgentConfig, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of config.pass_env) {
    const v = env[name];
    if (v !== undefined) out[name] = v;
  }
  return {
    ...out,
    HOME: p.home,
    PATH: `${p.bin}:${env.PATH ?? "/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
    GH_CONFIG_DIR: p.ghConfig,
    GH_PROMPT_DISABLED: "1",
    TMPDIR: p.tmp,
    XDG_CACHE_HOME: join(p.home, ".cache"),
    XDG_CONFIG_HOME: join(p.home, ".config"),
    EVAL_CASSETTES: p.cassettes,
    EVAL_STATE_DIR: p.state,
    EVAL_GH_CALL_LOG: p.callLog,
    EVAL_OUT: p.out,
    EVAL_WORKSPACE: p.workspace,
    EVAL_SKILLS_DIR: p.skills,
    EVAL_PROMPT_FILE: p.prompt,
  };
}

function fillCommand(command: readonly string[], p: RunRoot, executable: string): string[] {
  const values: Record<(typeof PLACEHOLDERS)[number], string> = {
    "{prompt_file}": p.prompt,
    "{workspace}": p.workspace,
    "{skills_dir}": p.skills,
    "{out_dir}": p.out,
  };
  const filled = command.map((arg) =>
    arg.replace(/\{[a-z_]+\}/g, (m) => values[m as keyof typeof values] ?? m),
  );
  filled[0] = executable;
  return filled;
}

const REDIRECT = 'o=$1; e=$2; shift 2; exec "$@" </dev/null >"$o" 2>"$e"';

/** Stages, runs, scans, copies and grades one run; returns its sealed record. */
export async function oneRun(r: OneRun): Promise<KeyRecord> {
  const p = await stageRun({
    root: r.root,
    repo: r.repo,
    armSha: r.arm.sha,
    prompt: r.task.prompt,
    taskDir: r.task.dir,
    fixtureDir: r.fixtureDir,
    cassettes: r.cassettesFile,
  });
  const env = agentEnv(p, r.config, r.env);
  const command = [
    "/bin/sh",
    "-c",
    REDIRECT,
    "agent",
    p.transcript,
    p.transcriptErr,
    ...fillCommand(r.config.command, p, r.executable),
  ];
  let argv = command;
  let spawnEnv = env;
  if (r.sandbox) {
    prepareWorkDir(r.sandbox, r.root);
    const binds = [...r.installDirs, p.ghDir].map((d) => ({ host: d, inside: d }));
    ({ argv, env: spawnEnv } = r.sandbox.wrap({
      workDir: r.root,
      cwd: p.workspace,
      env,
      command,
      roBinds: binds,
    }));
  }
  let res: Awaited<ReturnType<typeof runProc>>;
  try {
    res = await runProc(argv, {
      env: spawnEnv,
      cwd: r.sandbox ? undefined : p.workspace,
      timeoutMs: r.timeoutS * 1000,
    });
  } catch (error) {
    throw new UpstreamError(`agent cannot start: ${(error as Error).message}`);
  }
  if (r.sandbox && !res.timedOut && res.exitCode !== 0 && /^bwrap: /m.test(res.stderr))
    throw new UpstreamError(`the agent sandbox failed to start: ${res.stderr.trim().split("\n")[0]}`);
  if (
    !r.sandbox &&
    !res.timedOut &&
    (res.exitCode === 126 || res.exitCode === 127) &&
    !existsSync(r.executable)
  )
    throw new UpstreamError(`agent cannot start: ${r.executable}`);
  const exit: number | "timeout" = res.timedOut ? "timeout" : (res.exitCode ?? -signalNumber(res.signal));

  // Everything after the agent reads a private copy of its root (collect.ts), never the root itself.
  const partial = `raw/.${r.bid}.partial`;
  const copy = mkdirConfined(r.runDir, partial, 0o700);
  const collected = collectRunRoot(r.root, copy);
  const shingled = (path: string) =>
    path === "run/transcript.txt" ||
    path === "run/transcript.stderr.txt" ||
    path === "run/gh-calls.jsonl" ||
    path.startsWith("run/out/");
  const scan = await scanRunRoot(copy, r.rubric, shingled);
  const reasons: string[] = [...collected.reasons];
  for (const o of scan.offenders) {
    const why =
      o.kind === "canary"
        ? `canary in ${o.path}`
        : o.kind === "unreadable"
          ? `unreadable ${o.path}`
          : `rubric criteria text in ${o.path}`;
    if (!reasons.includes(why)) reasons.push(why);
  }
  const skipped = [...collected.skipped];
  for (const s of scan.skipped)
    if (s.startsWith("run/") && !skipped.includes(s.slice(4))) skipped.push(s.slice(4));

  const rawDir = join(r.runDir, "raw", r.bid);
  if (existsSync(join(copy, "run"))) renameSync(join(copy, "run"), rawDir);
  else mkdirConfined(r.runDir, `raw/${r.bid}`);
  rmSync(copy, { recursive: true, force: true });

  writeConfined(
    r.runDir,
    `checks/${r.bid}/case.json`,
    pyDump({ name: `promotion/${r.task.id}`, grade: r.rubric.checks }),
    { mkdirs: true },
  );
  const caseDir = join(r.runDir, "checks", r.bid);
  let checksPassed = true;
  if (r.rubric.checks.length > 0) {
    const graded = await gradeCase(caseDir, join(rawDir, "out"), { repoRoot: r.repo, cwd: r.repo });
    writeConfined(r.runDir, `raw/${r.bid}/checks.txt`, renderGrade(graded));
    checksPassed = graded.passed;
  } else writeConfined(r.runDir, `raw/${r.bid}/checks.txt`, "no checks\n");

  return {
    arm: r.armName,
    index: r.index,
    raw: `raw/${r.bid}`,
    exit,
    duration_s: Math.round(res.durationMs) / 1000,
    checks_passed: checksPassed,
    leak: reasons.length > 0,
    leak_reasons: reasons,
    skipped,
  };
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
};

function signalNumber(signal: string | null): number {
  return signal ? (SIGNALS[signal] ?? 1) : 1;
}
