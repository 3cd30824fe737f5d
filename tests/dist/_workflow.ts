// Runs a GitHub workflow's jobs on this machine, step by step, the way a runner would for the steps
// our examples use: `run:` lines through bash -eo pipefail, this repository's action through its own
// .github/action/run.sh (the install step is skipped: the tools are already on PATH), checkout as a
// no-op, upload-artifact and download-artifact as copies through one folder. Expressions are
// substituted from the job's contexts; any step or expression it does not know is an error, so the
// YAML cannot grow a step that the local run silently skips.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { run } from "../../lib/core/proc.ts";
import { REPO_ROOT } from "../support/tools.ts";

type Scalar = string | number | boolean;
export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, Scalar>;
  with?: Record<string, Scalar>;
}
export interface Job {
  needs?: string | string[];
  strategy?: { matrix?: Record<string, Scalar[]> };
  steps: Step[];
}
export interface Workflow {
  env?: Record<string, Scalar>;
  jobs: Record<string, Job>;
}

/** What one step did: its label and exit code, its output for the test to read on failure. */
export interface StepResult {
  step: string;
  exitCode: number;
  output: string;
}

/** Where a job runs: its workspace, the artifacts folder all jobs share, and its contexts. */
export interface JobContext {
  cwd: string;
  artifacts: string;
  matrix?: Record<string, Scalar>;
  env: Record<string, string>;
  secrets?: Record<string, string>;
}

const TOOLS = ["agent-eval", "run-eval", "eval-steps", "grade"];

/**
 * A PATH with `proctor` and its tools as this checkout's scripts (what the action's install step puts
 * on a runner's PATH, from source), then `extra` (e.g. the pinned agent CLIs), then this PATH.
 */
export function toolsOnPath(dir: string, extra: string[] = []): string {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const entry = join(REPO_ROOT, "scripts", "proctor.ts");
  writeFileSync(join(bin, "proctor"), `#!/bin/sh\nexec "${process.execPath}" "${entry}" "$@"\n`, {
    mode: 0o755,
  });
  for (const t of TOOLS)
    writeFileSync(join(bin, t), `#!/bin/sh\nexec "${process.execPath}" "${entry}" ${t} "$@"\n`, {
      mode: 0o755,
    });
  return [bin, ...extra, process.env.PATH].join(":");
}

/** The workflow file, parsed. */
export function loadWorkflow(path: string): Workflow {
  return parse(readFileSync(path, "utf8")) as Workflow;
}

/** `${{ a.b }}` replaced from the contexts; an unknown name throws. */
export function expand(text: string, ctx: JobContext, wfEnv: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([a-z]+)\.([A-Za-z0-9_-]+)\s*\}\}/g, (whole, scope: string, key: string) => {
    const from: Record<string, Record<string, Scalar> | undefined> = {
      env: wfEnv,
      matrix: ctx.matrix,
      secrets: ctx.secrets,
    };
    const v = from[scope]?.[key];
    if (v === undefined) throw new Error(`Cannot expand ${whole}: no ${scope}.${key} in this local run`);
    return String(v);
  });
}

const strings = (o: Record<string, Scalar> | undefined, f: (s: string) => string) =>
  Object.fromEntries(Object.entries(o ?? {}).map(([k, v]) => [k, f(String(v))]));

/** `trials-*` as a RegExp over artifact names. */
const globRe = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^$()|[\]\\{}]/g, "\\$&").replaceAll("*", ".*")}$`);

/** Runs every step of `job` in order, stopping at the first that fails (as a runner does). */
export async function runJob(wf: Workflow, job: Job, ctx: JobContext): Promise<StepResult[]> {
  const wfEnv = { ...strings(wf.env, (s) => s), ...ctx.env };
  const x = (s: string) => expand(s, ctx, wfEnv);
  const results: StepResult[] = [];
  const summary = join(
    ctx.cwd,
    "..",
    `summary-${ctx.matrix ? Object.values(ctx.matrix).join("-") : "job"}.md`,
  );
  for (const step of job.steps) {
    const label = step.name ? x(step.name) : (step.uses ?? "run");
    const withs = strings(step.with, x);
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...wfEnv,
      ...strings(step.env, x),
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: join(ctx.cwd, "..", "github-output"),
    };
    delete env.CI;
    let r = { exitCode: 0, output: "" };
    if (step.run !== undefined) {
      const p = await run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", x(step.run)], {
        cwd: ctx.cwd,
        env,
      });
      r = { exitCode: p.exitCode ?? -1, output: p.stdout + p.stderr };
    } else if (step.uses?.startsWith("actions/checkout@")) {
      // The workspace is laid out by the caller.
    } else if (step.uses?.endsWith("/proctor@v1")) {
      if (withs.args || withs.cases) {
        const inputs = Object.fromEntries(
          Object.entries(withs).map(([k, v]) => [`PROCTOR_${k.toUpperCase().replaceAll("-", "_")}`, v]),
        );
        const p = await run(["bash", join(REPO_ROOT, ".github", "action", "run.sh")], {
          cwd: ctx.cwd,
          env: { ...env, ...inputs },
        });
        r = { exitCode: p.exitCode ?? -1, output: p.stdout + p.stderr };
      }
    } else if (step.uses?.startsWith("actions/upload-artifact@")) {
      const into = join(ctx.artifacts, withs.name ?? "artifact");
      const paths = (withs.path ?? "").split("\n").filter(Boolean);
      if (paths.length === 1 && statSync(join(ctx.cwd, paths[0] ?? "")).isDirectory())
        cpSync(join(ctx.cwd, paths[0] ?? ""), into, { recursive: true });
      else for (const p of paths) cpSync(join(ctx.cwd, p), join(into, p), { recursive: true });
    } else if (step.uses?.startsWith("actions/download-artifact@")) {
      const re = globRe(withs.pattern ?? withs.name ?? "*");
      const names = existsSync(ctx.artifacts) ? readdirSync(ctx.artifacts).filter((n) => re.test(n)) : [];
      const into = join(ctx.cwd, withs.path ?? ".");
      mkdirSync(into, { recursive: true });
      for (const n of names)
        cpSync(join(ctx.artifacts, n), withs["merge-multiple"] === "true" ? into : join(into, n), {
          recursive: true,
        });
    } else {
      throw new Error(`No local stand-in for step "${label}" (${step.uses})`);
    }
    results.push({ step: label, ...r });
    if (r.exitCode !== 0) break;
  }
  return results;
}
