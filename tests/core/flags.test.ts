// Flags through the real entries: a repeatable flag keeps every value end to end (citty alone kept
// the last one, so `--redact-pattern A --redact-pattern B` published what A matched), a single-value
// flag given twice and an undeclared flag are usage errors (exit 2, one line), and the set of
// repeatable flags is exactly the documented one.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ArgsDef } from "citty";
import { checkFlags, flagValues, isRepeatable, repeatable } from "../../lib/core/flags.ts";
import { run } from "../../lib/core/proc.ts";
import { type PairKey, parsePairKey } from "../../lib/steps/pairs/index.ts";
import { allCommands } from "../support/commands.ts";
import { startMockModel, text } from "../support/mock-model.ts";
import { generateSessions, pairLine, sessionPairs } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

async function cli(tool: string, args: string[], env: Record<string, string> = {}) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", `${tool}.ts`), ...args], {
    env: { PATH: process.env.PATH ?? "", CI: "1", ...env },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const WORDS = ["zebra-crossing-17", "orchid-lantern-42"];

/** A pair store whose rows are sealed with two keys in turn, every user prompt carrying WORDS. */
function store(dir: string) {
  const keys = [0, 1].map((i) => {
    const path = join(dir, `k${i}.key`);
    writeFileSync(path, randomBytes(32).toString("base64"));
    return { path, key: parsePairKey(readFileSync(path, "utf8"), path) as PairKey };
  });
  const pairs = generateSessions({ seed: 4, sessions: 3, maxDepth: 4, noise: false })
    .flatMap((s) => sessionPairs(s).pairs)
    .map((p) => {
      const q = JSON.parse(JSON.stringify(p).replaceAll("Fix the bug", `Fix the bug ${WORDS.join(" ")}`));
      q.request.x_keep_a = "kept-a";
      q.request.x_keep_b = "kept-b";
      return q;
    });
  const path = join(dir, "pairs.jsonl");
  writeFileSync(path, pairs.map((p, i) => pairLine(p, keys[i % 2]?.key)).join(""));
  return { path, keys: keys.map((k) => k.path), rows: pairs.length };
}

function cases(out: string): Array<{ request: Record<string, unknown> }> {
  return readdirSync(out).map((n) => JSON.parse(readFileSync(join(out, n), "utf8")));
}

/** `eval-steps harvest` of the two-key store into DIR/suite, with `extra` flags. */
async function harvestInto(dir: string, extra: string[]) {
  const s = store(dir);
  const out = join(dir, "suite");
  const keys = s.keys.flatMap((k) => ["--pair-key-file", k]);
  const r = await cli("eval-steps", [
    "harvest",
    ...["--pairs", s.path, ...keys, "--experiment", "exp", "--out", out, "--select", "sample"],
    ...extra,
  ]);
  return { r, out };
}

describe("a repeatable flag keeps every value, end to end", () => {
  test.concurrent("eval-steps harvest --redact-pattern A --redact-pattern B removes both", async () => {
    using dir = tempDir("flags");
    const { r, out } = await harvestInto(
      dir.path,
      WORDS.flatMap((w) => ["--redact-pattern", w]),
    );
    const text = cases(out)
      .map((c) => JSON.stringify(c))
      .join("\n");
    expect({
      exitCode: r.exitCode,
      left: WORDS.filter((w) => text.includes(w)),
      markers: ["[REDACTED:pattern-1]", "[REDACTED:pattern-2]"].map((m) => text.includes(m)),
    }).toEqual({ exitCode: 0, left: [], markers: [true, true] });
  });

  test.concurrent("eval-steps harvest --keep-field X --keep-field Y keeps both fields", async () => {
    using dir = tempDir("flags");
    const { r, out } = await harvestInto(dir.path, ["--keep-field", "x_keep_a", "--keep-field", "x_keep_b"]);
    const kept = cases(out).map((c) => [c.request.x_keep_a, c.request.x_keep_b]);
    expect({ exitCode: r.exitCode, some: kept.length > 0, kept: new Set(kept.flat()) }).toEqual({
      exitCode: 0,
      some: true,
      kept: new Set(["kept-a", "kept-b"]),
    });
  });

  test.concurrent("eval-steps harvest --pair-key-file K1 --pair-key-file K2 opens rows of both", async () => {
    using dir = tempDir("flags");
    const s = store(dir.path);
    const keys = s.keys.flatMap((k) => ["--pair-key-file", k]);
    const r = await cli("eval-steps", [
      "harvest",
      ...["--pairs", s.path, ...keys, "--experiment", "exp", "--dry-run", "--output", "json"],
    ]);
    expect({ exitCode: r.exitCode, rows: r.exitCode === 0 ? JSON.parse(r.stdout).rows : r.stderr }).toEqual({
      exitCode: 0,
      rows: s.rows,
    });
  });

  test.concurrent("eval-steps judge --pair-key-file K1 --pair-key-file K2 opens rows of both", async () => {
    await using mock = await startMockModel({
      script: () => text(`{"a": 0.5, "b": 0.5, "reason": "even"}`),
    });
    using dir = tempDir("flags");
    const s = store(dir.path);
    writeFileSync(join(dir.path, "rubric.md"), "Prefer reading before editing.");
    const keys = s.keys.flatMap((k) => ["--pair-key-file", k]);
    const r = await cli(
      "eval-steps",
      [
        "judge",
        ...["--pairs", s.path, ...keys, "--experiment", "exp", "--history", join(dir.path, "h.jsonl")],
        ...["--rubric", join(dir.path, "rubric.md"), "--judge-model", "j", "--judge-url", mock.url],
        ...["--judge-key-env", "JUDGE_KEY", "--sample", "0", "--output", "json"],
      ],
      { JUDGE_KEY: "sk-judge-test" },
    );
    const parsed = r.exitCode === 0 ? JSON.parse(r.stdout) : { stderr: r.stderr };
    expect({ exitCode: r.exitCode, unusable: parsed.unusable, errors: parsed.errors }).toEqual({
      exitCode: 0,
      unusable: 0,
      errors: [],
    });
  });
});

describe("a single-value flag given twice is refused (exit 2, one line)", () => {
  const rows = [
    {
      tool: "eval-steps",
      args: ["harvest", "--session-key-file", "a", "--session-key-file", "b"],
      flag: "session-key-file",
    },
    { tool: "eval-steps", args: ["harvest", "--out", "a", "--out", "b"], flag: "out" },
    { tool: "eval-steps", args: ["harvest", "--pairs", "a", "--pairs=b"], flag: "pairs" },
    { tool: "eval-steps", args: ["run", "--key-env", "A", "--key-env", "B"], flag: "key-env" },
    {
      tool: "eval-steps",
      args: ["judge", "--judge-key-env", "A", "--judgeKeyEnv", "B"],
      flag: "judge-key-env",
    },
    { tool: "eval-mcp", args: ["--root", "/", "--root", "/tmp"], flag: "root" },
    { tool: "run-eval", args: ["-j", "2", "-j3", "case"], flag: "jobs" },
    { tool: "grade", args: ["--case", "a", "--out", "o", "--out", "p"], flag: "out" },
    { tool: "gh-shim", args: ["lint", "c.json", "--json", "--json"], flag: "json" },
  ];
  for (const row of rows)
    test.concurrent(`${row.tool} ${row.args[0]} --${row.flag}`, async () => {
      expect(await cli(row.tool, row.args)).toEqual({
        exitCode: 2,
        stdout: "",
        stderr: `✗ Cannot accept --${row.flag} twice: it takes one value\n`,
      });
    });

  test.concurrent("agent-eval suite keeps halo's vocabulary (error: line, exit 1)", async () => {
    expect(await cli("agent-eval", ["suite", "s.yaml", "--pass-env", "A", "--pass-env", "B"])).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: "error: Cannot accept --pass-env twice: it takes one value\n",
    });
  });

  test.concurrent("agent-eval run answers with its JSON object", async () => {
    expect(await cli("agent-eval", ["run", "--store", "/a", "--store", "/b"])).toEqual({
      exitCode: 2,
      stdout: '{"error": "Cannot accept --store twice: it takes one value", "exit": 2}\n',
      stderr: "✗ Cannot accept --store twice: it takes one value\n",
    });
  });

  test.concurrent("a flag before the subcommand is refused (citty ran the subcommand unchecked)", async () => {
    const args = ["--x", "harvest", "--pairs", "p", "--experiment", "e", "--out", "a", "--out", "b"];
    expect(await cli("eval-steps", args)).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: '✗ Cannot accept "--x" before the subcommand "harvest": put it after\n',
    });
  });

  test.concurrent("an undeclared flag is refused, not ignored", async () => {
    expect(await cli("eval-steps", ["harvest", "--pairs", "p", "--redact-patern", "x"])).toEqual({
      exitCode: 2,
      stdout: "",
      stderr:
        '✗ Cannot accept unknown flag "--redact-patern": did you mean --redact-pattern? (see eval-steps harvest --help)\n',
    });
  });
});

describe("checkFlags", () => {
  const def: ArgsDef = {
    file: { type: "positional", required: false },
    jobs: { type: "string", alias: "j" },
    "dry-run": { type: "boolean" },
    "redact-pattern": repeatable({ type: "string" }),
  };
  test.each<{ name: string; argv: string[]; expected: Record<string, string[]> }>([
    { name: "nothing", argv: [], expected: {} },
    {
      name: "repeats in order, every spelling",
      argv: ["--redact-pattern", "a", "--redact-pattern=b", "--redactPattern", "c"],
      expected: { "redact-pattern": ["a", "b", "c"] },
    },
    {
      name: "a value that looks like a flag",
      argv: ["--redact-pattern", "--x"],
      expected: { "redact-pattern": ["--x"] },
    },
    { name: "after -- nothing is a flag", argv: ["x", "--", "--jobs", "--jobs"], expected: {} },
    { name: "short alias once", argv: ["-j4", "--dry-run"], expected: {} },
    { name: "a negated boolean", argv: ["--no-dry-run"], expected: {} },
  ])("$name", ({ argv, expected }) => {
    expect(Object.fromEntries(checkFlags(def, argv, "demo").values)).toEqual(expected);
  });

  const listed = "expected one of --jobs, --dry-run, --redact-pattern (see demo --help)";
  test.each([
    { argv: ["-j", "1", "--jobs", "2"], error: "Cannot accept --jobs twice: it takes one value" },
    { argv: ["--dry-run", "--no-dry-run"], error: "Cannot accept --dry-run twice: it takes one value" },
    { argv: ["--no-jobs"], error: `Cannot accept unknown flag "--no-jobs": ${listed}` },
    { argv: ["--nope"], error: `Cannot accept unknown flag "--nope": ${listed}` },
    { argv: ["-x"], error: `Cannot accept unknown flag "-x": ${listed}` },
    {
      argv: ["--jbos", "2"],
      error: 'Cannot accept unknown flag "--jbos": did you mean --jobs? (see demo --help)',
    },
    {
      argv: ["--dryrun"],
      error: 'Cannot accept unknown flag "--dryrun": did you mean --dry-run? (see demo --help)',
    },
    {
      argv: ["--no-dryrun"],
      error: 'Cannot accept unknown flag "--no-dryrun": did you mean --no-dry-run? (see demo --help)',
    },
    {
      argv: ["--redactPatern", "x"],
      error: 'Cannot accept unknown flag "--redactPatern": did you mean --redact-pattern? (see demo --help)',
    },
    {
      argv: ["--hlep"],
      error: 'Cannot accept unknown flag "--hlep": did you mean --help? (see demo --help)',
    },
    { argv: ["-J"], error: `Cannot accept unknown flag "-J": ${listed}` },
    { argv: ["--redact-pattern"], error: "Cannot accept --redact-pattern without a value" },
  ])("refuses $argv", ({ argv, error }) => {
    expect(() => checkFlags(def, argv, "demo")).toThrow(error);
  });

  test("a command that declares nothing takes its argv as it is", () => {
    expect(checkFlags(undefined, ["--anything", "--anything", "x"], "demo")).toEqual({
      values: new Map(),
      positionals: ["x"],
    });
  });

  test("a command that declares words but no flags refuses every flag", () => {
    expect(() => checkFlags({ file: { type: "positional" } }, ["--anything", "x"], "demo")).toThrow(
      'Cannot accept unknown flag "--anything": demo takes no flags (see demo --help)',
    );
  });

  test("flagValues", () => {
    expect([flagValues(undefined), flagValues("a"), flagValues(["a", "b"])]).toEqual([[], ["a"], ["a", "b"]]);
  });
});

test("the repeatable flags are exactly the documented ones", async () => {
  const found = (await allCommands()).flatMap((c) =>
    Object.entries(c.args)
      .filter(([, d]) => isRepeatable(d))
      .map(([flag]) => `${c.path} --${flag}`),
  );
  // issue 26: docs/install.md listed four of the seven; it names each, whole, as the tools have them.
  const docs = readFileSync(join(REPO_ROOT, "docs", "install.md"), "utf8").replace(/\s+/g, " ");
  expect(found.filter((f) => !docs.includes(`\`${f}\``))).toEqual([]);
  expect(found.sort()).toEqual([
    "agent-eval suite --image-map",
    "agent-eval tasks check --image-map",
    "eval-steps harvest --keep-field",
    "eval-steps harvest --pair-key-file",
    "eval-steps harvest --redact-pattern",
    "eval-steps judge --pair-key-file",
    "run-eval compare --rerun",
  ]);
});
