// One run's root (agent_eval.py [newest], reference §5.3 step 10): a fresh `idd-agent-*` directory in
// the system temp dir, outside the store and the repository, holding only this run's stage, its own
// arm's skills/ (extracted for this run) and the gh shim, under names that are the same for every
// run, every entry stamped 1980-01-01T00:00:00Z so mtimes do not reveal the arm.
//
//   <root>/skills/                 this arm's skills/ tree            ({skills_dir}, EVAL_SKILLS_DIR)
//   <root>/run/workspace/          fixture copy, git repo, one commit ({workspace}, cwd, EVAL_WORKSPACE)
//   <root>/run/out/                the agent's artifacts              ({out_dir}, EVAL_OUT)
//   <root>/run/home/{.cache,.config}  HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME
//   <root>/run/tmp/                TMPDIR
//   <root>/run/gh-config/ state/   GH_CONFIG_DIR, EVAL_STATE_DIR
//   <root>/run/bin/gh              the gh shim, first on PATH
//   <root>/run/prompt.txt          the task prompt                    ({prompt_file}, EVAL_PROMPT_FILE)
//   <root>/run/cassettes.json      the task's cassettes or an empty list (EVAL_CASSETTES)
//   <root>/run/gh-calls.jsonl      the shim's call log                (EVAL_GH_CALL_LOG)
//   <root>/run/transcript.txt, transcript.stderr.txt   the agent's stdout and stderr
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UpstreamError } from "../core/errors.ts";
import { run } from "../core/proc.ts";
import { installGh, stageGh } from "../gh/stage.ts";
import { extractSkills } from "./git.ts";
import { FIXED_MTIME } from "./records.ts";

const FIXED_DATE = `${FIXED_MTIME} +0000`;

/** The paths of one staged run. */
export interface RunRoot {
  root: string;
  stage: string;
  skills: string;
  workspace: string;
  out: string;
  home: string;
  tmp: string;
  ghConfig: string;
  state: string;
  bin: string;
  prompt: string;
  cassettes: string;
  callLog: string;
  transcript: string;
  transcriptErr: string;
  /** The gh shim's cache directory, to bind read-only. */
  ghDir: string;
}

export function runRootPaths(root: string): Omit<RunRoot, "ghDir"> {
  const stage = join(root, "run");
  return {
    root,
    stage,
    skills: join(root, "skills"),
    workspace: join(stage, "workspace"),
    out: join(stage, "out"),
    home: join(stage, "home"),
    tmp: join(stage, "tmp"),
    ghConfig: join(stage, "gh-config"),
    state: join(stage, "state"),
    bin: join(stage, "bin"),
    prompt: join(stage, "prompt.txt"),
    cassettes: join(stage, "cassettes.json"),
    callLog: join(stage, "gh-calls.jsonl"),
    transcript: join(stage, "transcript.txt"),
    transcriptErr: join(stage, "transcript.stderr.txt"),
  };
}

/** A fresh, empty `idd-agent-*` directory under the real system temp dir. */
export function freshRoot(): string {
  return mkdtempSync(join(realpathSync(tmpdir()), "idd-agent-"));
}

/** Stamps `path` and everything under it (links themselves, never their targets) with the fixed time. */
export function stampAll(path: string): void {
  const st = lstatSync(path);
  if (st.isDirectory()) for (const name of readdirSync(path)) stampAll(join(path, name));
  if (!st.isSymbolicLink()) utimesSync(path, FIXED_MTIME, FIXED_MTIME);
}

/** Stages one run in `root`: see the layout above. */
export async function stageRun(opts: {
  root: string;
  repo: string;
  armSha: string;
  prompt: string;
  taskDir: string;
  fixtureDir: string | null;
  cassettes: string | null;
}): Promise<RunRoot> {
  const p = runRootPaths(opts.root);
  await extractSkills(opts.repo, opts.armSha, opts.root);
  for (const d of [
    p.stage,
    p.out,
    p.home,
    join(p.home, ".cache"),
    join(p.home, ".config"),
    p.tmp,
    p.ghConfig,
    p.state,
    p.bin,
  ])
    mkdirSync(d, { recursive: true });
  if (opts.fixtureDir) cpSync(opts.fixtureDir, p.workspace, { recursive: true, verbatimSymlinks: true });
  else mkdirSync(p.workspace);
  await commitFixture(p.workspace);
  writeFileSync(p.prompt, opts.prompt);
  if (opts.cassettes) cpSync(opts.cassettes, p.cassettes);
  else writeFileSync(p.cassettes, '{"version": 1, "calls": []}');
  writeFileSync(p.callLog, "");
  const gh = await stageGh();
  installGh(gh, p.bin);
  stampAll(opts.root);
  return { ...p, ghDir: gh.dir };
}

async function commitFixture(workspace: string): Promise<void> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: workspace,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "idd-eval",
    GIT_AUTHOR_EMAIL: "idd-eval@example.invalid",
    GIT_COMMITTER_NAME: "idd-eval",
    GIT_COMMITTER_EMAIL: "idd-eval@example.invalid",
    GIT_AUTHOR_DATE: FIXED_DATE,
    GIT_COMMITTER_DATE: FIXED_DATE,
  };
  const steps = [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "fixture"],
  ];
  for (const args of steps) {
    const r = await run(["git", "-C", workspace, ...args], { env });
    if (r.exitCode !== 0)
      throw new UpstreamError(
        `cannot commit the fixture: git ${args[0]}: ${r.stderr.trim().split("\n")[0] ?? ""}`,
      );
  }
}
