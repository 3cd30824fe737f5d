// The action's run and base steps (.github/action/run.sh, base.sh) over its inputs, against
// stand-in tools on PATH that log their argv: which command each combination of cases, args, shard,
// report, keep, result and compare-to builds, the artifact names a matrix job gets, the comparison in
// the job summary and as a pull-request comment (the token through the environment only), and every
// refusal (exit 2, one ::error line). The real tools under these steps: tests/dist/suite-matrix.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { toolsOnPath } from "./_workflow.ts";

const RUN = join(REPO_ROOT, ".github", "action", "run.sh");
const BASE = join(REPO_ROOT, ".github", "action", "base.sh");
const TOKEN = "ghs_not_a_real_token";

/** A stand-in tool: logs `name argv` (and whether GH_TOKEN reached it), prints JSON for --json and
 * Markdown for compare, exits FAKE_EXIT. gh logs the comment body it was handed. */
const FAKE = `#!/bin/bash
name="$(basename "$0")"
echo "$name $* \${GH_TOKEN:+[token in env]}" >>"$FAKE_LOG"
case " $* " in
  *" compare "*) echo "## $2 vs $3"; exit "\${FAKE_COMPARE_EXIT:-0}" ;;
  *" --json "*) echo '{"passed":1}' ;;
esac
if [ "$name" = gh ]; then for a in "$@"; do case "$a" in body=@*) cat "\${a#body=@}" >>"$FAKE_LOG";; esac; done; fi
exit "\${FAKE_EXIT:-0}"
`;

interface Row {
  name: string;
  env: Record<string, string>;
  fakeExit?: number;
  exitCode: number;
  calls: string[];
  stderr?: string;
  outputs?: string;
  summary?: string;
}

const err = (m: string) => `::error title=proctor::${m}\n`;
const rows: Row[] = [
  { name: "no cases, no args: installs only", env: {}, exitCode: 0, calls: [], outputs: "" },
  {
    name: "cases: run-eval with the JUnit report",
    env: { PROCTOR_CASES: "evals/cases" },
    exitCode: 0,
    calls: ["run-eval --junit proctor-junit.xml evals/cases "],
    outputs: "report-artifact=proctor-report\nkeep-artifact=proctor-keep\nresult=\n",
  },
  {
    name: "cases with jobs, shard, report and keep: artifact names carry the shard",
    env: {
      PROCTOR_CASES: "evals/cases",
      PROCTOR_JUNIT: "j.xml",
      PROCTOR_JOBS: "2",
      PROCTOR_SHARD: "1/4",
      PROCTOR_REPORT: "r.html",
      PROCTOR_KEEP: "kept",
    },
    exitCode: 0,
    calls: ["run-eval --junit j.xml -j 2 --shard 1/4 --report r.html --keep kept evals/cases "],
    outputs:
      "report-artifact=proctor-report-shard-1-of-4\nkeep-artifact=proctor-keep-shard-1-of-4\nresult=\n",
  },
  {
    name: "args: split like a shell, quotes kept together, nothing expanded",
    env: {
      PROCTOR_ARGS: `agent-eval suite "my suite.yaml" --trials '$HOME/t.jsonl' --seed 3`,
      PROCTOR_SHARD: "0/2",
    },
    exitCode: 0,
    calls: ["proctor agent-eval suite my suite.yaml --trials $HOME/t.jsonl --seed 3 --shard 0/2 "],
  },
  {
    name: "args that start with proctor: the same command",
    env: { PROCTOR_ARGS: "proctor run-eval evals/cases --json" },
    exitCode: 0,
    calls: ["proctor run-eval evals/cases --json "],
  },
  {
    name: "args of proctor alone",
    env: { PROCTOR_ARGS: "proctor" },
    exitCode: 2,
    calls: [],
    stderr: err('Cannot run args "proctor": expected a command such as agent-eval suite SUITE.yaml'),
  },
  {
    name: "the command's own exit code is the step's",
    env: { PROCTOR_CASES: "evals/cases" },
    fakeExit: 1,
    exitCode: 1,
    calls: ["run-eval --junit proctor-junit.xml evals/cases "],
  },
  {
    name: "cases and args together",
    env: { PROCTOR_CASES: "c", PROCTOR_ARGS: "agent-eval suite s.yaml" },
    exitCode: 2,
    calls: [],
    stderr: err("Cannot use both cases and args: cases runs run-eval, args any command; give one"),
  },
  {
    name: "shard without anything to run",
    env: { PROCTOR_SHARD: "0/4" },
    exitCode: 2,
    calls: [],
    stderr: err("Cannot use the shard input without cases or args: name what to run"),
  },
  {
    name: "compare-to without anything to run",
    env: { PROCTOR_COMPARE_TO: "base.json" },
    exitCode: 2,
    calls: [],
    stderr: err("Cannot use the compare-to input without cases or args: name what to run"),
  },
  {
    name: "a shard that is not K/N",
    env: { PROCTOR_CASES: "c", PROCTOR_SHARD: "1-4" },
    exitCode: 2,
    calls: [],
    stderr: err('Cannot use shard "1-4": expected K/N with 0 <= K < N (K 0-based: 0/4 .. 3/4)'),
  },
  {
    name: "args with an unmatched quote",
    env: { PROCTOR_ARGS: `agent-eval suite "s.yaml` },
    exitCode: 2,
    calls: [],
    stderr: err(`Cannot split args "agent-eval suite "s.yaml": unmatched quote or trailing backslash`),
  },
  {
    name: "args of blanks",
    env: { PROCTOR_ARGS: "   " },
    exitCode: 2,
    calls: [],
    stderr: err('Cannot run args "   ": expected a command such as agent-eval suite SUITE.yaml'),
  },
];

/** Rows that compare: the base file exists in the work folder unless the row says otherwise. */
const compareRows: (Row & { base?: boolean })[] = [
  {
    name: "compare-to with cases: run-eval --json writes the result, the comparison goes to the summary",
    env: { PROCTOR_CASES: "evals/cases", PROCTOR_COMPARE_TO: "base.json" },
    exitCode: 0,
    calls: [
      "run-eval --junit proctor-junit.xml --json evals/cases ",
      "run-eval compare base.json proctor-result.json ",
    ],
    summary: "## base.json vs proctor-result.json\n",
  },
  {
    name: "compare-to on a pull request with a token: a comment, the token in gh's environment alone",
    env: {
      PROCTOR_ARGS: "agent-eval suite s.yaml --scorecard head.json",
      PROCTOR_RESULT: "head.json",
      PROCTOR_COMPARE_TO: "base.json",
      GH_TOKEN: TOKEN,
      GITHUB_REF: "refs/pull/7/merge",
    },
    exitCode: 0,
    calls: [
      "proctor agent-eval suite s.yaml --scorecard head.json ",
      "agent-eval compare base.json head.json ",
      "gh api --method POST repos/o/proctor/issues/7/comments -F body=@TMP --silent [token in env]",
      "## base.json vs head.json",
    ],
    summary: "## base.json vs head.json\n",
  },
  {
    name: "a token on a push: the summary only",
    env: {
      PROCTOR_ARGS: "agent-eval suite s.yaml --scorecard head.json",
      PROCTOR_RESULT: "head.json",
      PROCTOR_COMPARE_TO: "base.json",
      GH_TOKEN: TOKEN,
      GITHUB_REF: "refs/heads/main",
    },
    exitCode: 0,
    calls: [
      "proctor agent-eval suite s.yaml --scorecard head.json ",
      "agent-eval compare base.json head.json ",
    ],
    summary: "## base.json vs head.json\n",
  },
  {
    name: "a comparison that finds something worse: its Markdown posted, the step fails with its 1",
    env: { PROCTOR_CASES: "evals/cases", PROCTOR_COMPARE_TO: "base.json", FAKE_COMPARE_EXIT: "1" },
    exitCode: 1,
    calls: [
      "run-eval --junit proctor-junit.xml --json evals/cases ",
      "run-eval compare base.json proctor-result.json ",
    ],
    summary: "## base.json vs proctor-result.json\n",
  },
  {
    name: "a comparison that refuses the base: nothing posted, exit 2",
    env: { PROCTOR_CASES: "evals/cases", PROCTOR_COMPARE_TO: "base.json", FAKE_COMPARE_EXIT: "2" },
    exitCode: 2,
    calls: [
      "run-eval --junit proctor-junit.xml --json evals/cases ",
      "run-eval compare base.json proctor-result.json ",
    ],
    summary: "",
  },
  {
    name: "a failed run is still compared, and keeps its exit code",
    env: { PROCTOR_CASES: "evals/cases", PROCTOR_COMPARE_TO: "base.json" },
    fakeExit: 1,
    exitCode: 1,
    calls: [
      "run-eval --junit proctor-junit.xml --json evals/cases ",
      "run-eval compare base.json proctor-result.json ",
    ],
    summary: "## base.json vs proctor-result.json\n",
  },
  {
    name: "a base that does not exist",
    env: { PROCTOR_CASES: "evals/cases", PROCTOR_COMPARE_TO: "base.json" },
    base: false,
    exitCode: 2,
    calls: ["run-eval --junit proctor-junit.xml --json evals/cases "],
    stderr: err(
      'Cannot compare against "base.json": no such file (compare-to takes a path, or artifact:NAME/FILE)',
    ),
  },
  {
    name: "args that write no result",
    env: { PROCTOR_ARGS: "agent-eval suite s.yaml", PROCTOR_COMPARE_TO: "base.json" },
    exitCode: 2,
    calls: ["proctor agent-eval suite s.yaml "],
    stderr: err(
      "Cannot compare: the run wrote no proctor-result.json (with args, write it with the command, e.g. --scorecard proctor-result.json)",
    ),
  },
];

async function runStep(row: Row & { base?: boolean }) {
  using dir = tempDir("proctor-action-run");
  const bin = join(dir.path, "bin");
  const work = join(dir.path, "work");
  for (const d of [bin, work]) mkdirSync(d);
  for (const tool of ["proctor", "run-eval", "agent-eval", "gh"])
    writeFileSync(join(bin, tool), FAKE, { mode: 0o755 });
  if (row.base !== false) writeFileSync(join(work, "base.json"), "{}\n");
  // With --scorecard in args, the stand-in does not write it: the test writes the head beforehand.
  if (row.env.PROCTOR_RESULT) writeFileSync(join(work, row.env.PROCTOR_RESULT), "{}\n");
  const files = {
    log: join(dir.path, "log"),
    out: join(dir.path, "out"),
    summary: join(dir.path, "summary"),
  };
  for (const f of Object.values(files)) writeFileSync(f, "");
  const r = await run(["bash", RUN], {
    cwd: work,
    env: {
      PATH: `${bin}:/usr/bin:/bin`,
      FAKE_LOG: files.log,
      FAKE_EXIT: String(row.fakeExit ?? 0),
      GITHUB_OUTPUT: files.out,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_REPOSITORY: "o/proctor",
      ...row.env,
    },
  });
  const log = readFileSync(files.log, "utf8").replace(/body=@\S+/g, "body=@TMP");
  return {
    exitCode: r.exitCode,
    calls: log.split("\n").filter(Boolean),
    errors: r.stderr
      .split("\n")
      .filter((l) => l.startsWith("::"))
      .map((l) => `${l}\n`)
      .join(""),
    outputs: readFileSync(files.out, "utf8"),
    summary: readFileSync(files.summary, "utf8"),
    leaked: r.stderr.includes(TOKEN) || r.stdout.includes(TOKEN) || log.includes(TOKEN),
  };
}

describe("run.sh", () => {
  for (const row of [...rows, ...compareRows]) {
    test.concurrent(row.name, async () => {
      const r = await runStep(row);
      expect({
        exitCode: r.exitCode,
        calls: r.calls,
        errors: r.errors,
        leaked: r.leaked,
        ...(row.outputs === undefined ? {} : { outputs: r.outputs }),
        ...(row.summary === undefined ? {} : { summary: r.summary }),
      }).toEqual({
        exitCode: row.exitCode,
        calls: row.calls,
        errors: row.stderr ?? "",
        leaked: false,
        ...(row.outputs === undefined ? {} : { outputs: row.outputs }),
        ...(row.summary === undefined ? {} : { summary: row.summary }),
      });
    });
  }
});

/**
 * A --local agent under the command: looks for the token in every ancestor's environment and command
 * line and in the regular files they hold open, as any process of the same user can, and logs where
 * it found it. It learns the token from a file, never from its own environment.
 */
const SNOOP = `#!/bin/bash
want="$(cat "$SNOOP_TOKEN_FILE")"
pid=$$
while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
  for f in /proc/$pid/environ /proc/$pid/cmdline /proc/$pid/fd/*; do
    [ "\${f#/proc/$pid/fd/}" = "$f" ] || [ -f "$f" ] || continue
    if tr '\\0' '\\n' <"$f" 2>/dev/null | grep -qF -- "$want"; then
      echo "token readable at \${f/\\/proc\\/$pid\\//<pid $( [ "$pid" = $$ ] && echo self || echo ancestor )>/}" >>"$FAKE_LOG"
    fi
  done
  pid="$(awk '/^PPid:/ {print $2}' /proc/$pid/status 2>/dev/null)"
done
echo "snooped $*" >>"$FAKE_LOG"
`;

test("the token is nowhere a process the command starts can read it: environ, cmdline, open files", async () => {
  using dir = tempDir("proctor-action-run");
  const bin = join(dir.path, "bin");
  const work = join(dir.path, "work");
  for (const d of [bin, work]) mkdirSync(d);
  writeFileSync(join(bin, "proctor"), SNOOP, { mode: 0o755 });
  for (const tool of ["agent-eval", "gh"]) writeFileSync(join(bin, tool), FAKE, { mode: 0o755 });
  writeFileSync(join(work, "base.json"), "{}\n");
  writeFileSync(join(work, "head.json"), "{}\n");
  // A token of this run alone, so no other process on the machine can hold the same string.
  const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
  const tokenFile = join(dir.path, "token");
  const log = join(dir.path, "log");
  writeFileSync(tokenFile, token);
  writeFileSync(log, "");
  const r = await run(["bash", RUN], {
    cwd: work,
    env: {
      PATH: `${bin}:/usr/bin:/bin`,
      FAKE_LOG: log,
      SNOOP_TOKEN_FILE: tokenFile,
      GITHUB_REPOSITORY: "o/proctor",
      GITHUB_REF: "refs/pull/7/merge",
      PROCTOR_ARGS: "agent-eval suite s.yaml --local --scorecard head.json",
      PROCTOR_RESULT: "head.json",
      PROCTOR_COMPARE_TO: "base.json",
      GH_TOKEN: token,
    },
  });
  expect({
    exitCode: r.exitCode,
    calls: readFileSync(log, "utf8")
      .replace(/body=@\S+/g, "body=@TMP")
      .split("\n")
      .filter((l) => l && !l.startsWith("## ")),
    warning: r.stderr.split("\n").filter((l) => l.startsWith("::")),
  }).toEqual({
    exitCode: 0,
    calls: [
      "snooped agent-eval suite s.yaml --local --scorecard head.json",
      "agent-eval compare base.json head.json ",
      "gh api --method POST repos/o/proctor/issues/7/comments -F body=@TMP --silent [token in env]",
    ],
    warning: [
      "::warning title=proctor::--local runs the agents on this runner with no isolation: the token is kept from them, but they can change what later steps run (the tools on PATH) or outlive the command",
    ],
  });
});

describe("base.sh", () => {
  const cases: {
    spec: string;
    runId?: string;
    hasToken?: string;
    exitCode: number;
    outputs: string;
    stderr: string;
  }[] = [
    {
      spec: "artifact:main-scorecard/scorecard.json",
      exitCode: 0,
      outputs: "name=main-scorecard\nfile=/b/scorecard.json\n",
      stderr: "",
    },
    {
      spec: "artifact:runs/sub/result.json",
      exitCode: 0,
      outputs: "name=runs\nfile=/b/sub/result.json\n",
      stderr: "",
    },
    ...["artifact:main-scorecard", "artifact:/x.json", "artifact:name/", "base.json"].map((spec) => ({
      spec,
      exitCode: 2,
      outputs: "",
      stderr: err(`Cannot use compare-to "${spec}": expected a path, or artifact:NAME/FILE`),
    })),
    {
      spec: "artifact:main-scorecard/scorecard.json",
      runId: "12345",
      exitCode: 2,
      outputs: "",
      stderr: err('Cannot download "main-scorecard" from run 12345: set the token input (actions: read)'),
    },
    {
      spec: "artifact:main-scorecard/scorecard.json",
      runId: "12345",
      hasToken: "true",
      exitCode: 0,
      outputs: "name=main-scorecard\nfile=/b/scorecard.json\n",
      stderr: "",
    },
    {
      spec: "artifact:n/../../etc/passwd",
      exitCode: 2,
      outputs: "",
      stderr: err('Cannot use compare-to "artifact:n/../../etc/passwd": FILE must stay inside the artifact'),
    },
  ];
  for (const c of cases) {
    test(`${c.spec}${c.runId ? ` of run ${c.runId}${c.hasToken ? " with a token" : ""}` : ""}`, async () => {
      using dir = tempDir("proctor-action-base");
      const out = join(dir.path, "out");
      writeFileSync(out, "");
      const r = await run(["bash", BASE], {
        env: {
          PATH: "/usr/bin:/bin",
          COMPARE_TO: c.spec,
          COMPARE_RUN_ID: c.runId ?? "",
          HAS_TOKEN: c.hasToken ?? "false",
          BASE_DIR: "/b",
          GITHUB_OUTPUT: out,
        },
      });
      expect({ exitCode: r.exitCode, stderr: r.stderr, outputs: readFileSync(out, "utf8") }).toEqual({
        exitCode: c.exitCode,
        stderr: c.stderr,
        outputs: c.outputs,
      });
    });
  }
});

describe("run.sh with the real run-eval (sandboxed), as the action runs it", () => {
  test("a run's result, then a run compared against it: report, JUnit, the comparison in the summary", async () => {
    using dir = tempDir("proctor-action-run-real");
    const work = join(dir.path, "work");
    mkdirSync(work);
    const PATH = toolsOnPath(dir.path);
    const cases = join(REPO_ROOT, "evals", "cases", "issue-creator");
    const step = async (env: Record<string, string>) => {
      const gh = { GITHUB_OUTPUT: join(dir.path, "out"), GITHUB_STEP_SUMMARY: join(dir.path, "summary") };
      for (const f of Object.values(gh)) writeFileSync(f, "");
      const r = await run(["bash", RUN], { cwd: work, env: { PATH, HOME: dir.path, ...gh, ...env } });
      return {
        exitCode: r.exitCode,
        stderr: r.stderr,
        summary: readFileSync(gh.GITHUB_STEP_SUMMARY, "utf8"),
      };
    };
    const first = await step({ PROCTOR_CASES: cases, PROCTOR_RESULT: "base.json" });
    const second = await step({
      PROCTOR_CASES: cases,
      PROCTOR_COMPARE_TO: "base.json",
      PROCTOR_REPORT: "report.html",
    });
    const direct = await run(["run-eval", "compare", "base.json", "proctor-result.json"], {
      cwd: work,
      env: { PATH, HOME: dir.path },
    });
    const written = readdirSync(work).sort();
    expect({
      exitCodes: [first.exitCode, second.exitCode, direct.exitCode],
      written,
      // run-eval writes its own table to the summary; the comparison follows it, as compare prints it.
      comparisonLast: second.summary.endsWith(direct.stdout) && direct.stdout.length > 0,
      results: [
        (JSON.parse(readFileSync(join(work, "base.json"), "utf8")) as { cases: unknown[] }).cases.length,
        (JSON.parse(readFileSync(join(work, "proctor-result.json"), "utf8")) as { cases: unknown[] }).cases
          .length,
      ],
    }).toEqual({
      exitCodes: [0, 0, 0],
      written: ["base.json", "proctor-junit.xml", "proctor-result.json", "report.html"],
      comparisonLast: true,
      results: [3, 3],
    });
  });
});
