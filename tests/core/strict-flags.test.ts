// Strict flags over every tool and subcommand: an unknown flag, and a misspelt subcommand where a
// command has subcommands, exit 2 with one line naming it and the closest valid one (agent-eval
// suite keeps halo's `error:` line and exit 1; the promotion subcommands also print their JSON
// object). The commands are walked from the entries' citty definitions, so a new subcommand without
// a row here fails. Rows run in-process through each entry's main(); those that read stdin or are
// not citty (grade runlog, gh-shim replay, the proctor dispatcher) run as processes.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { captureStreams } from "../support/capture.ts";
import { allCommands, TOOLS } from "../support/commands.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

interface Outcome {
  /** null only for a process killed by a signal. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

interface Row {
  /** The command the row is for, as allCommands() names it. */
  path: string;
  argv: string[];
  expected: Outcome;
}

const refused = (stderr: string, stdout = ""): Outcome => ({ exitCode: 2, stdout, stderr: `✗ ${stderr}\n` });
const flag = (raw: string, hint: string, path: string) =>
  `Cannot accept unknown flag "${raw}": ${hint} (see ${path} --help)`;
const meant = (raw: string, near: string, path: string) => flag(raw, `did you mean ${near}?`, path);
/** The promotion lane's refusal: its JSON object on stdout, the line on stderr. */
const promotion = (message: string): Outcome =>
  refused(message, `{"error": ${JSON.stringify(message)}, "exit": 2}\n`);

/**
 * An unknown flag for every command, each with the suggestion it earns (the run-eval, agent-eval
 * suite and plan rows are issue 12's own command lines, silently accepted before strict flags).
 */
const UNKNOWN_FLAG: Row[] = [
  { path: "gh-shim", argv: ["--hlep"], expected: refused(meant("--hlep", "--help", "gh-shim")) },
  {
    path: "gh-shim lint",
    argv: ["lint", "c.json", "--jsn"],
    expected: refused(meant("--jsn", "--json", "gh-shim lint")),
  },
  {
    path: "grade",
    argv: ["--case", "c", "--out", "o", "--jsn"],
    expected: refused(meant("--jsn", "--json", "grade")),
  },
  {
    path: "grade lint",
    argv: ["lint", "c", "--jsno"],
    expected: refused(meant("--jsno", "--json", "grade lint")),
  },
  {
    path: "grade lint-issue",
    argv: ["lint-issue", "--hepl"],
    expected: refused(meant("--hepl", "--help", "grade lint-issue")),
  },
  {
    path: "grade lint-branch",
    argv: ["lint-branch", "fix/1-a", "--hepl"],
    expected: refused(meant("--hepl", "--help", "grade lint-branch")),
  },
  {
    path: "grade lint-commit",
    argv: ["lint-commit", "--hepl"],
    expected: refused(meant("--hepl", "--help", "grade lint-commit")),
  },
  {
    path: "grade lint-pr",
    argv: ["lint-pr", "body.md", "--titel", "t"],
    expected: refused(meant("--titel", "--title", "grade lint-pr")),
  },
  {
    path: "run-eval",
    argv: ["--jbos", "2"],
    expected: refused(meant("--jbos", "--jobs", "run-eval")),
  },
  {
    path: "run-eval new",
    argv: ["new", "a/b", "--rot", "x"],
    expected: refused(meant("--rot", "--root", "run-eval new")),
  },
  {
    path: "run-eval merge",
    argv: ["merge", "s0.json", "--junti", "j.xml"],
    expected: refused(meant("--junti", "--junit", "run-eval merge")),
  },
  {
    path: "run-eval compare",
    argv: ["compare", "a.json", "b.json", "--rerun", "c.json", "--reprot", "c.html"],
    expected: refused(meant("--reprot", "--report", "run-eval compare")),
  },
  {
    path: "gh-shim record",
    argv: ["record", "--updte", "--", "true"],
    expected: refused(meant("--updte", "--update", "gh-shim record")),
  },
  { path: "agent-eval", argv: ["--hlep"], expected: refused(meant("--hlep", "--help", "agent-eval")) },
  {
    path: "agent-eval lock",
    argv: ["lock", "--task-di", "t"],
    expected: promotion(meant("--task-di", "--task-id", "agent-eval lock")),
  },
  {
    path: "agent-eval run",
    argv: ["run", "--candiate", "c"],
    expected: promotion(meant("--candiate", "--candidate", "agent-eval run")),
  },
  {
    path: "agent-eval verdict",
    argv: ["verdict", "--scroes", "s.json"],
    expected: promotion(meant("--scroes", "--scores", "agent-eval verdict")),
  },
  {
    path: "agent-eval verify",
    argv: ["verify", "--run-dri", "r"],
    expected: promotion(meant("--run-dri", "--run-dir", "agent-eval verify")),
  },
  {
    path: "agent-eval plan",
    argv: ["plan", "--runz"],
    expected: promotion(meant("--runz", "--runs", "agent-eval plan")),
  },
  {
    path: "agent-eval suite",
    argv: ["suite", "--paralel", "9", "--outptu", "json"],
    // halo eval's vocabulary: `error: <msg>` and exit 1; the first bad flag is named.
    expected: {
      exitCode: 1,
      stdout: "",
      stderr: `error: ${meant("--paralel", "--parallel", "agent-eval suite")}\n`,
    },
  },
  {
    path: "agent-eval suite merge",
    argv: ["suite", "merge", "s.yaml", "--scorcard", "x.json"],
    // merge's own edge: halo's `error:` line, but a refusal is exit 2.
    expected: {
      exitCode: 2,
      stdout: "",
      stderr: `error: ${meant("--scorcard", "--scorecard", "agent-eval suite merge")}\n`,
    },
  },
  {
    path: "agent-eval compare",
    argv: ["compare", "a.json", "b.json", "--reprot", "c.html"],
    expected: refused(meant("--reprot", "--report", "agent-eval compare")),
  },
  {
    path: "agent-eval tasks",
    argv: ["tasks", "--hlep"],
    expected: refused(meant("--hlep", "--help", "agent-eval tasks")),
  },
  {
    path: "agent-eval tasks check",
    argv: ["tasks", "check", "t", "--imag-map", "a=b"],
    // suite's edge: halo's `error:` line and exit 1.
    expected: {
      exitCode: 1,
      stdout: "",
      stderr: `error: ${meant("--imag-map", "--image-map", "agent-eval tasks check")}\n`,
    },
  },
  {
    path: "agent-eval report",
    argv: ["report", "run", "--otu", "r.html"],
    expected: promotion(meant("--otu", "--out", "agent-eval report")),
  },
  { path: "eval-steps", argv: ["--hlep"], expected: refused(meant("--hlep", "--help", "eval-steps")) },
  {
    path: "eval-steps harvest",
    argv: ["harvest", "--pairs", "p", "--redact-patern", "x"],
    expected: refused(meant("--redact-patern", "--redact-pattern", "eval-steps harvest")),
  },
  {
    path: "eval-steps run",
    argv: ["run", "--modle", "m"],
    expected: refused(meant("--modle", "--model", "eval-steps run")),
  },
  {
    path: "eval-steps judge",
    argv: ["judge", "--rubirc", "r.md"],
    expected: refused(meant("--rubirc", "--rubric", "eval-steps judge")),
  },
  {
    path: "eval-steps merge",
    argv: ["merge", "s0.json", "--scorecrad", "m.json"],
    expected: refused(meant("--scorecrad", "--scorecard", "eval-steps merge")),
  },
  {
    path: "eval-steps keygen",
    argv: ["keygen", "--ot", "k"],
    expected: refused(meant("--ot", "--out", "eval-steps keygen")),
  },
  {
    path: "eval-steps compare",
    argv: ["compare", "a.json", "b.json", "--outptu", "json"],
    expected: refused(meant("--outptu", "--output", "eval-steps compare")),
  },
  {
    path: "eval-mcp",
    argv: ["--allow-write"],
    expected: refused(meant("--allow-write", "--allow-writes", "eval-mcp")),
  },
  {
    path: "mock-model",
    argv: ["--replys", "r.yaml"],
    expected: refused(meant("--replys", "--replies", "mock-model")),
  },
];

/** A misspelt subcommand for every command that has subcommands. */
const MISSPELT: Row[] = [
  {
    // run-eval's words are case directories; only a first word new, merge or compare is a subcommand.
    path: "run-eval",
    argv: ["nwe"],
    expected: refused('Cannot read case directory "nwe": no such directory'),
  },
  {
    path: "gh-shim",
    argv: ["lnit", "c.json"],
    expected: refused('Unknown command "lnit" for gh-shim: did you mean lint?'),
  },
  {
    path: "grade",
    argv: ["lnit", "c"],
    expected: refused('Unknown command "lnit" for grade: did you mean lint?'),
  },
  {
    path: "agent-eval",
    argv: ["sutie"],
    expected: refused('Unknown command "sutie" for agent-eval: did you mean suite?'),
  },
  {
    // suite takes a word of its own (the suite file): a misspelt `merge` is a suite file not found.
    path: "agent-eval suite",
    argv: ["suite", "mrege", "s.jsonl"],
    expected: {
      exitCode: 1,
      stdout: "",
      stderr: `error: Cannot read suite "${join(process.cwd(), "mrege")}": no such file\n`,
    },
  },
  {
    path: "agent-eval tasks",
    argv: ["tasks", "chek", "t"],
    expected: refused('Unknown command "chek" for agent-eval tasks: did you mean check?'),
  },
  {
    path: "eval-steps",
    argv: ["harvst", "--pairs", "p"],
    expected: refused('Unknown command "harvst" for eval-steps: did you mean harvest?'),
  },
];

/** `grade --bogus` (issue 12's fourth command line) and other words too far to guess. */
const NAMED: Array<Row & { name: string }> = [
  {
    name: "grade --bogus: nothing close, the flags are listed",
    path: "grade",
    argv: ["--bogus"],
    expected: refused(flag("--bogus", "expected one of --case, --out, --max-file-bytes, --json", "grade")),
  },
  {
    name: "a command without flags says so",
    path: "agent-eval",
    argv: ["--bogus"],
    expected: refused(flag("--bogus", "agent-eval takes no flags", "agent-eval")),
  },
  {
    name: "a one-letter flag is never guessed",
    path: "run-eval",
    argv: ["-x", "case"],
    expected: refused(
      flag(
        "-x",
        "expected one of --jobs, --repo, --scripts-root, --keep, --junit, --report, --json, --shard, --timeout, --grade-timeout, --max-file-bytes, --sandbox, --pids-max, --memory-max",
        "run-eval",
      ),
    ),
  },
  {
    name: "a subcommand too far to guess lists them",
    path: "eval-steps",
    argv: ["frobnicate"],
    expected: refused(
      'Unknown command "frobnicate" for eval-steps: expected one of harvest, run, judge, merge, keygen, compare',
    ),
  },
  {
    name: "a misspelt subcommand is named before the flags meant for it",
    path: "agent-eval",
    argv: ["sutie", "--paralel", "9"],
    expected: refused('Unknown command "sutie" for agent-eval: did you mean suite?'),
  },
  ...[
    { path: "grade", argv: ["--case", "x", "--ot", "y"], raw: "--ot", near: "--out" },
    { path: "gh-shim", argv: ["--hepl", "y"], raw: "--hepl", near: "--help" },
    { path: "agent-eval tasks", argv: ["tasks", "--hepl", "y"], raw: "--hepl", near: "--help" },
  ].map(({ path, argv, raw, near }) => ({
    // issue 26: `grade --case x --ot y` said `Unknown command "y"`: the word is the flag's value.
    name: `${path}: an unknown flag's value is not taken for a subcommand (${argv.join(" ")})`,
    path,
    argv,
    expected: refused(meant(raw, near, path)),
  })),
  {
    name: "an unknown flag's value on a command without flags",
    path: "eval-steps",
    argv: ["--suite", "s"],
    expected: refused(flag("--suite", "eval-steps takes no flags", "eval-steps")),
  },
  {
    name: "a negated boolean is suggested as one",
    path: "eval-steps harvest",
    argv: ["harvest", "--no-dryrun"],
    expected: refused(meant("--no-dryrun", "--no-dry-run", "eval-steps harvest")),
  },
];

// In-process rows write through the process's own streams: capture them, and restore exitCode.
const captured = captureStreams();

async function inProcess(row: Row): Promise<Outcome> {
  const tool = row.path.split(" ")[0] as string;
  const load = TOOLS[tool];
  if (!load) throw new Error(`No entry for ${tool}`);
  const exitCode = await (await load()).main(row.argv);
  return { exitCode, ...captured() };
}

describe("an unknown flag is refused with the closest valid one", () => {
  for (const row of UNKNOWN_FLAG)
    test(`${row.path}: ${row.argv.join(" ")}`, async () => {
      expect(await inProcess(row)).toEqual(row.expected);
    });
});

describe("a misspelt subcommand is refused with the closest valid one", () => {
  for (const row of MISSPELT)
    test(`${row.path}: ${row.argv.join(" ")}`, async () => {
      expect(await inProcess(row)).toEqual(row.expected);
    });
});

describe("words too far to guess, and which mistake is named first", () => {
  for (const row of NAMED)
    test(row.name, async () => {
      expect(await inProcess(row)).toEqual(row.expected);
    });
});

test("every command has an unknown-flag row, every command with subcommands a misspelt one", async () => {
  const commands = await allCommands();
  // grade runlog and gh-shim replay declare nothing: their words are another program's (below).
  const passThrough = ["gh-shim replay", "grade runlog"];
  expect({
    flags: UNKNOWN_FLAG.map((r) => r.path).sort(),
    subcommands: MISSPELT.map((r) => r.path).sort(),
  }).toEqual({
    flags: commands
      .map((c) => c.path)
      .filter((p) => !passThrough.includes(p))
      .sort(),
    subcommands: commands
      .filter((c) => c.subCommands.length > 0)
      .map((c) => c.path)
      .sort(),
  });
  expect(
    commands.filter((c) => c.command.args === undefined && c.subCommands.length === 0).map((c) => c.path),
  ).toEqual(passThrough);
});

/** `script` (scripts/<script>) run as a process with `argv`, and `input` on its stdin. */
async function cli([script, ...argv]: string[], input?: string): Promise<Outcome> {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", script as string), ...argv], {
    env: { PATH: process.env.PATH ?? "", CI: "1" },
    ...(input === undefined ? {} : { input }),
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const TOOL_NAMES = "gh, gh-shim, grade, run-eval, agent-eval, eval-steps, eval-mcp, mock-model";

describe("commands whose words are another program's, and the dispatcher", () => {
  test.each<{ name: string; argv: string[]; input?: string; expected: Outcome }>([
    {
      // gi-runlog's argparse refuses it (exit 2, its own line); argparse suggests nothing.
      name: "grade runlog --ecoh: the gi-runlog port refuses it as gi-runlog did",
      argv: ["grade.ts", "runlog", "--ecoh"],
      input: "{}",
      expected: refused("gi-runlog: unrecognized arguments: --ecoh"),
    },
    {
      // gh's arguments are not ours to parse: the shim answers as gh (no cassette set: exit 2).
      name: "gh-shim replay --bogus: gh answers",
      argv: ["gh-shim.ts", "replay", "--bogus"],
      expected: refused("EVAL_CASSETTES is not set — cannot replay"),
    },
    {
      name: "proctor grde: the closest tool",
      argv: ["proctor.ts", "grde"],
      expected: refused('Unknown tool "grde": did you mean grade?'),
    },
    {
      name: "proctor --verison: the closest of its own flags",
      argv: ["proctor.ts", "--verison"],
      expected: refused(meant("--verison", "--version", "proctor")),
    },
    {
      name: "proctor frobnicate: the tools listed",
      argv: ["proctor.ts", "frobnicate"],
      expected: refused(`Unknown tool "frobnicate": expected one of ${TOOL_NAMES}`),
    },
    {
      name: "proctor <tool> hands the tool its words",
      argv: ["proctor.ts", "agent-eval", "sutie"],
      expected: refused('Unknown command "sutie" for agent-eval: did you mean suite?'),
    },
  ])("$name", async ({ argv, input, expected }) => {
    expect(await cli(argv, input)).toEqual(expected);
  });

  test("every tool the dispatcher knows is walked here (gh is gh itself)", () => {
    expect(TOOL_NAMES.split(", ").filter((t) => t !== "gh")).toEqual(Object.keys(TOOLS));
  });
});
