// The host-independent checks of hermetic-lane.md "Cases on a host without a sandbox" (originals.md
// 7.4 T2, T3 and T5), for every case in evals/cases: its cassette replays byte for byte through the
// shim, its subject keeps the contract, its repo_scripts are plain files of the allowed shape, and
// its subject plus grade pass in a throw-away directory, with the artifacts equal to expected/.
// This run is deliberately NOT sandboxed (the spec's pattern for a host without one): the subject
// gets a cleared environment, the shim as gh in front of PATH and a private work directory, but
// the network is not taken away. The sandboxed run-eval run stays the authoritative one.
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { run } from "../lib/core/proc.ts";
import { gradeCase } from "../lib/grade/runner.ts";
import { exampleCases, repoScripts } from "./support/cases.ts";
import { cassetteRules, replayExact } from "./support/cassette-replay.ts";
import { contractKept, subjectFacts } from "./support/subject-contract.ts";
import { tempDir } from "./support/tmp.ts";
import { BIN, REPO_ROOT } from "./support/tools.ts";

const cases = exampleCases();
const REPO_SCRIPT_RE = /^src\/shared\/scripts\/[a-z0-9]+(-[a-z0-9]+)*\.py$/;
const SUBJECT_TIMEOUT_MS = 50_000;

/** Every regular file under `dir` as relative path -> UTF-8 text, sorted by path. */
function tree(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) Object.assign(out, tree(path, root));
    else out[relative(root, path)] = readFileSync(path, "utf8");
  }
  return out;
}

/**
 * Runs the case's subject the way run-eval lays it out, minus the sandbox: a copy of the case, a
 * scratch repo/ seeded from fixture_repo/, the repo_scripts copied into EVAL_SCRIPTS_DIR, the shim
 * as the only gh on PATH, an isolated HOME and only the EVAL_* variables. The call log is created
 * empty first and published as OUT/gh-calls.jsonl afterwards.
 */
async function runSubject(caseDir: string, work: string) {
  const dirs = Object.fromEntries(
    ["case", "bin", "out", "state", "repo", "home", "scripts"].map((d) => [d, join(work, d)]),
  ) as Record<"case" | "bin" | "out" | "state" | "repo" | "home" | "scripts", string>;
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  cpSync(caseDir, dirs.case, { recursive: true });
  if (existsSync(join(caseDir, "fixture_repo")))
    cpSync(join(caseDir, "fixture_repo"), dirs.repo, { recursive: true });
  for (const s of repoScripts(caseDir)) cpSync(join(REPO_ROOT, s), join(dirs.scripts, basename(s)));
  const gh = join(dirs.bin, "gh");
  writeFileSync(gh, `#!/bin/sh\nexec '${BIN.bun}' '${join(REPO_ROOT, "scripts", "proctor.ts")}' gh "$@"\n`, {
    mode: 0o755,
  });
  const log = join(work, "gh-calls.jsonl");
  writeFileSync(log, "");
  const result = await run(["bash", join(dirs.case, "subject.sh")], {
    cwd: dirs.repo,
    timeoutMs: SUBJECT_TIMEOUT_MS,
    env: {
      HOME: dirs.home,
      PATH: `${dirs.bin}:/usr/bin:/bin`,
      EVAL_OUT: dirs.out,
      EVAL_STATE_DIR: dirs.state,
      EVAL_CASSETTES: join(dirs.case, "cassettes.json"),
      EVAL_GH_CALL_LOG: log,
      EVAL_SCRIPTS_DIR: dirs.scripts,
    },
  });
  cpSync(log, join(dirs.out, "gh-calls.jsonl"));
  return { result, out: dirs.out };
}

test("there are example cases", () => {
  expect(cases.length).toBeGreaterThanOrEqual(14);
});

describe.each(cases)("$name", ({ name, dir }) => {
  test("every exact cassette entry replays byte for byte through the shim", async () => {
    const path = join(dir, "cassettes.json");
    const { replayed, recorded } = await replayExact(path);
    expect({ rules: cassetteRules(path), replayed }).toEqual({
      rules: { version: 1, duplicates: [], nonZeroExits: [], unparsableJson: [] },
      replayed: recorded,
    });
  });

  test("subject keeps the hermetic contract", async () => {
    expect(await subjectFacts(dir)).toEqual(contractKept(name));
  });

  test("repo_scripts are plain files of the allowed shape, reached only through EVAL_SCRIPTS_DIR", () => {
    const scripts = repoScripts(dir);
    const subject = readFileSync(join(dir, "subject.sh"), "utf8");
    expect({
      bad: scripts.filter((s) => {
        const path = join(REPO_ROOT, s);
        return !REPO_SCRIPT_RE.test(s) || !existsSync(path) || !lstatSync(path).isFile();
      }),
      usesScriptsDir: subject.includes("EVAL_SCRIPTS_DIR"),
    }).toEqual({ bad: [], usesScriptsDir: scripts.length > 0 });
  });

  test(
    "subject plus grade pass in a throw-away directory, and OUT equals expected/",
    async () => {
      using work = tempDir("proctor-case");
      const { result, out } = await runSubject(dir, work.path);
      expect({ exit: result.exitCode, timedOut: result.timedOut, stderr: result.stderr }).toEqual({
        exit: 0,
        timedOut: false,
        stderr: "",
      });
      const graded = await gradeCase(dir, out, { repoRoot: REPO_ROOT });
      expect(graded.assertions.filter((a) => !a.ok)).toEqual([]);
      expect(tree(out)).toEqual(tree(join(dir, "expected")));
    },
    SUBJECT_TIMEOUT_MS + 10_000,
  );
});
