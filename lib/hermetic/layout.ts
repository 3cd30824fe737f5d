// The private work directory of one case run, laid out as run_eval.sh laid it out:
//   WORK/state/ (EVAL_STATE_DIR)   WORK/out/ (OUT, EVAL_OUT)   WORK/bin/ (gh first, python3, git)
//   WORK/case/ (a copy of the case without expected/, subject.sh 0755)  WORK/repo/ (cwd, from fixture_repo/)
//   WORK/home/ (HOME)   WORK/gh-config/ (GH_CONFIG_DIR)   WORK/scripts/ (EVAL_SCRIPTS_DIR)
//   WORK/gh-calls.jsonl (the call log, outside OUT)   WORK/cassettes.json or WORK/empty-cassettes.json
// and the subject's environment, which holds these paths and nothing else from the host.
import { chmodSync, cpSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ensureDir, which } from "../core/fsx.ts";

/** Absolute paths of one run's work directory. */
export interface Work {
  root: string;
  state: string;
  out: string;
  bin: string;
  case: string;
  repo: string;
  home: string;
  ghConfig: string;
  scripts: string;
  callLog: string;
  cassettes: string;
  gh: string;
}

/** The variables a subject sees, in this order; nothing else from the runner's environment. */
export const SUBJECT_ENV_KEYS = [
  "HOME",
  "GH_CONFIG_DIR",
  "PATH",
  "EVAL_CASSETTES",
  "EVAL_STATE_DIR",
  "EVAL_OUT",
  "EVAL_CASE_DIR",
  "EVAL_WORK",
  "EVAL_SCRIPTS_DIR",
  "EVAL_GH_CALL_LOG",
] as const;

const EMPTY_CASSETTES = '{"version":1,"calls":[]}\n';

/** Paths of a work directory rooted at `root` (nothing is created). */
export function workPaths(root: string, hasCassettes: boolean): Work {
  return {
    root,
    state: join(root, "state"),
    out: join(root, "out"),
    bin: join(root, "bin"),
    case: join(root, "case"),
    repo: join(root, "repo"),
    home: join(root, "home"),
    ghConfig: join(root, "gh-config"),
    scripts: join(root, "scripts"),
    callLog: join(root, "gh-calls.jsonl"),
    cassettes: join(root, hasCassettes ? "cassettes.json" : "empty-cassettes.json"),
    gh: join(root, "bin", "gh"),
  };
}

/**
 * A fresh directory under the system temp dir to hold one run's WORK (`<it>/work`): owned by the
 * runner, mode 0755, so a subject running as another uid can enter it but never rename WORK itself.
 */
export function makeWorkRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "proctor-eval-"));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * The first executable `name` in the system directories (readable by any user and bound into every
 * sandbox), else on the runner's PATH.
 */
export function findTool(name: string): string | null {
  const system = ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"];
  return which(name, [...system, process.env.PATH ?? ""].join(delimiter));
}

function execWrapper(target: string): string {
  return `#!/bin/sh\nexec '${target.replaceAll("'", `'\\''`)}' "$@"\n`;
}

/**
 * Lays out `root` for the case in `caseDir`: every directory, the case copy (no expected/; subject.sh 0755), the
 * seeded repo, the cassettes (or an empty cassette), the python3 and git wrappers. gh is the caller's.
 */
export function layOut(root: string, caseDir: string): Work {
  const hasCassettes = existsSync(join(caseDir, "cassettes.json"));
  const w = workPaths(root, hasCassettes);
  for (const d of [w.state, w.out, w.bin, w.repo, w.home, w.ghConfig, w.scripts]) ensureDir(d);
  // expected/ holds the answers the case is graded against (grading reads the host's case dir), so
  // the subject's copy leaves it out: the sandbox shows WORK, and nothing of the host's case dir.
  const answers = join(caseDir, "expected");
  cpSync(caseDir, w.case, { recursive: true, verbatimSymlinks: true, filter: (src) => src !== answers });
  chmodSync(join(w.case, "subject.sh"), 0o755);
  const fixture = join(caseDir, "fixture_repo");
  if (existsSync(fixture)) {
    try {
      cpSync(fixture, w.repo, { recursive: true, verbatimSymlinks: true });
    } catch {
      // run_eval.sh ignored copy errors here (`cp -R ... || true`)
    }
  }
  if (hasCassettes) cpSync(join(caseDir, "cassettes.json"), w.cassettes);
  else writeFileSync(w.cassettes, EMPTY_CASSETTES);
  for (const tool of ["python3", "git"]) {
    const target = findTool(tool);
    if (target) writeFileSync(join(w.bin, tool), execWrapper(target), { mode: 0o755 });
  }
  return w;
}

/** The subject's whole environment (SUBJECT_ENV_KEYS, nothing inherited). */
export function subjectEnv(w: Work): Record<string, string> {
  return {
    HOME: w.home,
    GH_CONFIG_DIR: w.ghConfig,
    PATH: `${w.bin}:/usr/bin:/bin`,
    EVAL_CASSETTES: w.cassettes,
    EVAL_STATE_DIR: w.state,
    EVAL_OUT: w.out,
    EVAL_CASE_DIR: w.case,
    EVAL_WORK: w.root,
    EVAL_SCRIPTS_DIR: w.scripts,
    EVAL_GH_CALL_LOG: w.callLog,
  };
}
