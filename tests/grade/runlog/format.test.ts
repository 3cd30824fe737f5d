import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  normalizeRecord,
  PyFloat,
  parsePyJson,
  RunlogRecord,
  runlogRecordJsonSchema,
  runRunlog,
} from "../../../lib/grade/runlog/index.ts";

// issue-resolver/trivial-bug's run.json and auto-pilot/merge-gating's four records.
const TRIVIAL = {
  ts: "2026-08-11T12:00:00Z",
  issue: 1,
  mode: "auto",
  skill: "issue-resolver",
  complexity: "low",
  profile: "light",
  qa_cycles: 1,
  outcome: "success",
  pr: 1,
  duration_s: 12,
};
const MERGED = {
  ts: "2026-08-24T12:00:00Z",
  issue: 51,
  mode: "balanced",
  skill: "auto-pilot",
  complexity: "low",
  profile: "light",
  qa_cycles: 1,
  outcome: "merged",
  pr: 101,
  duration_s: 42,
};
const NOW = new Date("2026-11-30T01:02:03.456Z");
const errorOf = (raw: unknown) => normalizeRecord(raw, { now: NOW });

describe("normalizeRecord: valid records", () => {
  test("trivial-bug record: canonical order, compact line", () => {
    expect(normalizeRecord(TRIVIAL)).toEqual({
      ok: true,
      record: TRIVIAL,
      line: '{"ts":"2026-08-11T12:00:00Z","issue":1,"mode":"auto","skill":"issue-resolver","complexity":"low","profile":"light","qa_cycles":1,"outcome":"success","pr":1,"duration_s":12}',
    });
  });

  test("keys are re-ordered, ts is filled from the clock, nulls dropped, complexity collapsed", () => {
    const raw = {
      phases: { plan: 3, build_1: 10 },
      pr: null,
      outcome: "blocked_by_dependency",
      skill: "auto-pilot",
      mode: "balanced",
      issue: 50,
      ts: null,
      event_id: "run:50.1",
      complexity: "complex",
      profile: null,
      agent_overrides: "partial",
      qa_cycles: 4,
      skipped_reason: null,
      breach_reason: "flaky CI",
    };
    expect(normalizeRecord(raw, { now: NOW })).toEqual({
      ok: true,
      record: {
        ts: "2026-11-30T01:02:03Z",
        event_id: "run:50.1",
        issue: 50,
        mode: "balanced",
        skill: "auto-pilot",
        complexity: "high",
        agent_overrides: "partial",
        qa_cycles: 4,
        breach_reason: "flaky CI",
        outcome: "blocked_by_dependency",
        pr: null,
        phases: { plan: 3, build_1: 10 },
      },
      line: '{"ts":"2026-11-30T01:02:03Z","event_id":"run:50.1","issue":50,"mode":"balanced","skill":"auto-pilot","complexity":"high","agent_overrides":"partial","qa_cycles":4,"breach_reason":"flaky CI","outcome":"blocked_by_dependency","pr":null,"phases":{"plan":3,"build_1":10}}',
    });
  });

  const valid = [
    { name: "trivial collapses to low", patch: { complexity: "trivial" }, key: "complexity", value: "low" },
    { name: "empty phases map is dropped", patch: { phases: {} }, key: "phases", value: undefined },
    {
      name: "explicit ceiling raises the bar",
      patch: { profile: "full", qa_cycles: 7, ceiling: 7 },
      key: "qa_cycles",
      value: 7,
    },
    {
      name: "high complexity allows 5",
      patch: { profile: "full", complexity: "high", qa_cycles: 5 },
      key: "qa_cycles",
      value: 5,
    },
    {
      name: "breach_reason lets a run exceed",
      patch: { qa_cycles: 9, breach_reason: "x" },
      key: "breach_reason",
      value: "x",
    },
    {
      name: "big issue numbers stay exact",
      patch: { issue: 12345678901234567890n },
      key: "issue",
      value: 12345678901234567890n,
    },
    { name: "non-ASCII strings are kept", patch: { mode: "modé" }, key: "mode", value: "modé" },
    { name: "undefined is an absent key", patch: { event_id: undefined }, key: "event_id", value: undefined },
  ];
  for (const c of valid) {
    test(c.name, () => {
      const r = normalizeRecord({ ...TRIVIAL, ...c.patch });
      expect(r.ok && r.record[c.key]).toEqual(c.value === undefined ? undefined : c.value);
      expect(r.ok).toBe(true);
    });
  }

  test("merge-gating's four outcome records are valid", () => {
    const records = [
      MERGED,
      {
        ...MERGED,
        mode: "conservative",
        complexity: "medium",
        profile: "full",
        qa_cycles: 2,
        outcome: "left_open",
      },
      {
        ...MERGED,
        mode: "aggressive",
        complexity: "medium",
        profile: "full",
        qa_cycles: 2,
        outcome: "partial_followup",
      },
      { ...MERGED, issue: 50, qa_cycles: 0, outcome: "blocked_by_dependency", pr: null, duration_s: 4 },
    ];
    expect(records.map((r) => normalizeRecord(r).ok)).toEqual([true, true, true, true]);
  });

  test("schemas/runlog-record.schema.json is the generated schema", () => {
    const path = join(import.meta.dirname, "..", "..", "..", "schemas", "runlog-record.schema.json");
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(runlogRecordJsonSchema());
  });

  test("the zod schema accepts a normalized record and rejects unknown keys", () => {
    const r = normalizeRecord(TRIVIAL);
    expect([
      RunlogRecord.safeParse(r.ok && r.record).success,
      RunlogRecord.safeParse({ ...TRIVIAL, x: 1 }).success,
    ]).toEqual([true, false]);
  });
});

describe("normalizeRecord: each violation reports the original's message", () => {
  const cases: { name: string; raw: unknown; error: string }[] = [
    { name: "not an object", raw: [1], error: "stdin must be a single JSON object" },
    { name: "null", raw: null, error: "stdin must be a single JSON object" },
    {
      name: "unknown keys sorted",
      raw: { ...TRIVIAL, zeta: 1, Alpha: 2, b: 3 },
      error: "unknown key(s): Alpha, b, zeta",
    },
    {
      name: "missing required",
      raw: { ts: TRIVIAL.ts, issue: 1, mode: "auto" },
      error: "missing required key(s): skill, outcome, pr",
    },
    { name: "pr missing", raw: { ...TRIVIAL, pr: undefined }, error: "missing required key(s): pr" },
    {
      name: "null required",
      raw: { ...TRIVIAL, issue: null, mode: null },
      error: "null is not a valid value for: issue, mode (only `pr` is nullable)",
    },
    { name: "bool is not an int", raw: { ...TRIVIAL, issue: true }, error: "issue must be an integer" },
    {
      name: "float is not an int",
      raw: { ...TRIVIAL, qa_cycles: 1.5 },
      error: "qa_cycles must be an integer",
    },
    {
      name: "Python float 1.0 is not an int",
      raw: { ...TRIVIAL, duration_s: new PyFloat(12) },
      error: "duration_s must be an integer",
    },
    { name: "string int", raw: { ...TRIVIAL, ceiling: "2" }, error: "ceiling must be an integer" },
    { name: "number string field", raw: { ...TRIVIAL, mode: 1 }, error: "mode must be a string" },
    { name: "ts must be a string", raw: { ...TRIVIAL, ts: 5 }, error: "ts must be a string" },
    { name: "pr float", raw: { ...TRIVIAL, pr: new PyFloat(1) }, error: "pr must be an integer or null" },
    { name: "pr string", raw: { ...TRIVIAL, pr: "1" }, error: "pr must be an integer or null" },
    {
      name: "unknown skill",
      raw: { ...TRIVIAL, skill: "idd" },
      error: "skill must be one of auto-pilot, issue-resolver",
    },
    {
      name: "merge-gating wrong vocabulary",
      raw: { ...MERGED, outcome: "success" },
      error:
        "outcome 'success' is not valid for skill 'auto-pilot' (allowed: blocked_by_dependency, failed, left_open, merged, partial_followup, skipped)",
    },
    {
      name: "resolver with an auto-pilot outcome",
      raw: { ...TRIVIAL, outcome: "merged" },
      error:
        "outcome 'merged' is not valid for skill 'issue-resolver' (allowed: already_resolved, failed, success)",
    },
    { name: "empty mode", raw: { ...TRIVIAL, mode: "" }, error: "mode must be a non-empty string" },
    {
      name: "ts format",
      raw: { ...TRIVIAL, ts: "2026-08-11 12:00:00" },
      error: "ts '2026-08-11 12:00:00' is not an ISO-8601 UTC instant (YYYY-MM-DDTHH:MM:SSZ)",
    },
    {
      name: "ts with millis",
      raw: { ...TRIVIAL, ts: "2026-08-11T12:00:00.000Z" },
      error: "ts '2026-08-11T12:00:00.000Z' is not an ISO-8601 UTC instant (YYYY-MM-DDTHH:MM:SSZ)",
    },
    {
      name: "complexity",
      raw: { ...TRIVIAL, complexity: "huge" },
      error: "complexity 'huge' is not one of complex, high, low, medium, trivial",
    },
    {
      name: "event_id charset",
      raw: { ...TRIVIAL, event_id: "-x" },
      error: "event_id must be 1-128 safe identifier characters ([A-Za-z0-9._:-])",
    },
    {
      name: "event_id length",
      raw: { ...TRIVIAL, event_id: "a".repeat(129) },
      error: "event_id must be 1-128 safe identifier characters ([A-Za-z0-9._:-])",
    },
    {
      name: "profile",
      raw: { ...TRIVIAL, profile: "heavy" },
      error: "profile 'heavy' is not one of full, light",
    },
    {
      name: "agent_overrides",
      raw: { ...TRIVIAL, agent_overrides: "none" },
      error: "agent_overrides 'none' is not one of applied, fallback, partial",
    },
    {
      name: "phases not an object",
      raw: { ...TRIVIAL, phases: [1] },
      error: "phases must be an object of {phase name: seconds}",
    },
    {
      name: "too many phases",
      raw: { ...TRIVIAL, phases: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`p${i}`, 1])) },
      error: "phases carries 17 entries (max 16)",
    },
    {
      name: "phase name",
      raw: { ...TRIVIAL, phases: { Plan: 1 } },
      error: "phase name 'Plan' must be 1-32 chars of [a-z0-9_-], starting with a letter",
    },
    {
      name: "phase seconds negative",
      raw: { ...TRIVIAL, phases: { plan: -1 } },
      error: "phases.plan must be a non-negative integer",
    },
    {
      name: "phase seconds float",
      raw: { ...TRIVIAL, phases: { plan: new PyFloat(1) } },
      error: "phases.plan must be a non-negative integer",
    },
    {
      name: "negative qa_cycles",
      raw: { ...TRIVIAL, qa_cycles: -1 },
      error: "qa_cycles must be a non-negative integer",
    },
    { name: "ceiling below 1", raw: { ...TRIVIAL, ceiling: 0 }, error: "ceiling must be a positive integer" },
    {
      name: "merge-gating uncapped cycles (light ceiling 1)",
      raw: { ...MERGED, qa_cycles: 9 },
      error: "qa_cycles 9 exceeds class ceiling 1; breach_reason is required",
    },
    {
      name: "full/medium ceiling is 2, blank reason does not count",
      raw: { ...TRIVIAL, profile: "full", complexity: "medium", qa_cycles: 3, breach_reason: " \t" },
      error: "qa_cycles 3 exceeds class ceiling 2; breach_reason is required",
    },
    {
      name: "profile absent, complexity high: ceiling 5",
      raw: { ...TRIVIAL, profile: undefined, complexity: "complex", qa_cycles: 6 },
      error: "qa_cycles 6 exceeds class ceiling 5; breach_reason is required",
    },
    {
      name: "explicit ceiling",
      raw: { ...TRIVIAL, ceiling: 3, qa_cycles: 4 },
      error: "qa_cycles 4 exceeds class ceiling 3; breach_reason is required",
    },
  ];
  for (const c of cases) test(c.name, () => expect(errorOf(c.raw)).toEqual({ ok: false, errors: [c.error] }));

  test("parsed JSON keeps 1.0 apart from 1", () => {
    expect(errorOf(parsePyJson(JSON.stringify(TRIVIAL).replace('"issue":1', '"issue":1.0')))).toEqual({
      ok: false,
      errors: ["issue must be an integer"],
    });
  });
});

describe("runRunlog --echo", () => {
  const io = { cwd: "/nonexistent-proctor-dir" };
  const echo = (stdin: string | Uint8Array) => runRunlog(["--echo"], stdin, io);

  test("prints the normalized line and writes nothing", async () => {
    expect(await echo(JSON.stringify(TRIVIAL, null, 2))).toEqual({
      exitCode: 0,
      stdout:
        '{"ts":"2026-08-11T12:00:00Z","issue":1,"mode":"auto","skill":"issue-resolver","complexity":"low","profile":"light","qa_cycles":1,"outcome":"success","pr":1,"duration_s":12}\n',
      stderr: "",
    });
  });

  test("accepts bytes", async () => {
    expect((await echo(new TextEncoder().encode(JSON.stringify(MERGED)))).exitCode).toEqual(0);
  });

  const invalid: { name: string; stdin: string | Uint8Array; stderr: string }[] = [
    {
      name: "malformed JSON",
      stdin: "{",
      stderr: "✗ gi-runlog: stdin is not valid JSON — Expecting property name enclosed in double quotes\n",
    },
    { name: "empty stdin", stdin: "", stderr: "✗ gi-runlog: stdin is not valid JSON — Expecting value\n" },
    { name: "a JSON array", stdin: "[]", stderr: "✗ gi-runlog: stdin must be a single JSON object\n" },
    { name: "two objects", stdin: "{}\n{}", stderr: "✗ gi-runlog: stdin is not valid JSON — Extra data\n" },
    {
      name: "1.0 is a float",
      stdin: JSON.stringify(TRIVIAL).replace('"pr":1', '"pr":1.0'),
      stderr: "✗ gi-runlog: pr must be an integer or null\n",
    },
    {
      name: "NaN",
      stdin: JSON.stringify(TRIVIAL).replace('"pr":1', '"pr":NaN'),
      stderr: "✗ gi-runlog: pr must be an integer or null\n",
    },
    {
      name: "unknown fields",
      stdin: JSON.stringify({ ...TRIVIAL, extra: 1 }),
      stderr: "✗ gi-runlog: unknown key(s): extra\n",
    },
    { name: "wrong vocabulary", stdin: JSON.stringify({ ...MERGED, outcome: "success" }), stderr: "" },
    {
      name: "non-UTF-8 (invalid start byte)",
      stdin: new Uint8Array([0x7b, 0x80, 0x7d]),
      stderr: "✗ gi-runlog: stdin is not valid UTF-8 — invalid start byte at byte 1\n",
    },
    {
      name: "non-UTF-8 (invalid continuation)",
      stdin: new Uint8Array([0x22, 0xc3, 0x28]),
      stderr: "✗ gi-runlog: stdin is not valid UTF-8 — invalid continuation byte at byte 1\n",
    },
    {
      name: "non-UTF-8 (truncated)",
      stdin: new Uint8Array([0x22, 0xe2, 0x82]),
      stderr: "✗ gi-runlog: stdin is not valid UTF-8 — unexpected end of data at byte 1\n",
    },
    {
      name: "non-UTF-8 (surrogate)",
      stdin: new Uint8Array([0xed, 0xa0, 0x80]),
      stderr: "✗ gi-runlog: stdin is not valid UTF-8 — invalid continuation byte at byte 0\n",
    },
  ];
  for (const c of invalid) {
    test(`exit 3: ${c.name}`, async () => {
      const r = await echo(c.stdin);
      expect({
        exitCode: r.exitCode,
        stdout: r.stdout,
        stderr: c.stderr ? r.stderr : r.stderr.startsWith("✗ gi-runlog: outcome"),
      }).toEqual({
        exitCode: 3,
        stdout: "",
        stderr: c.stderr || true,
      });
    });
  }
});

describe("runRunlog usage (exit 2)", () => {
  const cases: { argv: string[]; stderr: string }[] = [
    {
      argv: ["--echo", "--append"],
      stderr: "✗ gi-runlog: argument --append: not allowed with argument --echo\n",
    },
    {
      argv: ["--append-once", "--failure-streak", "1"],
      stderr: "✗ gi-runlog: argument --failure-streak: not allowed with argument --append-once\n",
    },
    { argv: ["--app"], stderr: "✗ gi-runlog: ambiguous option: --app could match --append, --append-once\n" },
    {
      argv: ["--failure-streak", "x"],
      stderr: "✗ gi-runlog: argument --failure-streak: invalid int value: 'x'\n",
    },
    { argv: ["--threshold"], stderr: "✗ gi-runlog: argument --threshold: expected one argument\n" },
    { argv: ["--rotate-max-bytes", "-1"], stderr: "✗ gi-runlog: --rotate-max-bytes must be >= 0\n" },
    { argv: ["--rotate-max-days=-2"], stderr: "✗ gi-runlog: --rotate-max-days must be >= 0\n" },
    { argv: ["--tail-segments", "-1", "--echo"], stderr: "✗ gi-runlog: --tail-segments must be >= 0\n" },
    { argv: ["--bogus"], stderr: "✗ gi-runlog: unrecognized arguments: --bogus\n" },
    { argv: ["file.json"], stderr: "✗ gi-runlog: unrecognized arguments: file.json\n" },
  ];
  for (const c of cases) {
    test(c.argv.join(" "), async () =>
      expect(await runRunlog(c.argv, "{}", { cwd: "/" })).toEqual({
        exitCode: 2,
        stdout: "",
        stderr: c.stderr,
      }),
    );
  }

  test("--help exits 0 with usage", async () => {
    const r = await runRunlog(["-h"], "", { cwd: "/" });
    expect({ exitCode: r.exitCode, usage: r.stdout.startsWith("usage: gi-runlog.py") }).toEqual({
      exitCode: 0,
      usage: true,
    });
  });
});
