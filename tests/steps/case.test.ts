// The step case format: the committed JSON Schema stays generated, a good case loads, and every bad
// field is refused with the file and the field named.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { loadStepCase, parseStepCase, type StepCase, stepCaseJsonSchema } from "../../lib/steps/case.ts";
import { tempDir } from "../support/tmp.ts";

const REPO = join(import.meta.dirname, "..", "..");

/** A valid case, for tests to start from. */
const GOOD_CASE: StepCase = {
  version: 1,
  id: "s-0123456789abcdef-3",
  protocol: "anthropic",
  request: { model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ name: "Read" }] },
  tools: [{ name: "Read", required: ["path"] }],
  expected: { calls: [{ name: "Read", args: { path: "a" } }] },
  expectedFrom: "production",
  alternatives: [{ from: "control", calls: [{ name: "Read", args: { path: "b" } }] }],
  match: "tools",
  reasons: ["diverged"],
  provenance: {
    pairId: "p1",
    experiment: "exp",
    session: `hmac-sha256:${"0".repeat(16)}:${"a".repeat(64)}`,
    depth: 3,
    harvestedAt: "2026-11-30T03:00:00Z",
    redaction: "redact-2",
  },
};

test("schemas/step-case.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO, "schemas", "step-case.schema.json"), "utf8"));
  expect(committed).toEqual(stepCaseJsonSchema());
});

test("a good case loads unchanged", () => {
  using dir = tempDir("step-case");
  const path = join(dir.path, "c.json");
  writeFileSync(path, JSON.stringify(GOOD_CASE));
  expect(loadStepCase(path)).toEqual(GOOD_CASE);
});

describe("bad cases are refused naming the field", () => {
  const cases: Array<{ name: string; edit: (c: Record<string, unknown>) => void; message: string }> = [
    { name: "version 2", edit: (c) => (c.version = 2), message: "Invalid input: expected 1 at version" },
    { name: "unknown field", edit: (c) => (c.extra = 1), message: 'Unrecognized key: "extra"' },
    {
      name: "bad match",
      edit: (c) => (c.match = "exact"),
      message: 'Invalid option: expected one of "tools"|"calls" at match',
    },
    {
      name: "no reasons",
      edit: (c) => (c.reasons = []),
      message: "Too small: expected array to have >=1 items at reasons",
    },
    {
      name: "raw session",
      edit: (c) => ((c.provenance as Record<string, unknown>).session = "sess-raw"),
      message:
        "Invalid string: must match pattern /^hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}$/ at provenance.session",
    },
    {
      name: "bad id",
      edit: (c) => (c.id = "../x"),
      message: "Invalid string: must match pattern /^[A-Za-z0-9][A-Za-z0-9._-]*$/ at id",
    },
  ];
  test.each(cases)("$name", ({ edit, message }) => {
    const c = structuredClone(GOOD_CASE) as unknown as Record<string, unknown>;
    edit(c);
    let err: unknown;
    try {
      parseStepCase(c, "x.json");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toEqual(`Cannot load step case "x.json": ${message}`);
  });
});

test("unreadable and unparsable files are ConfigErrors", () => {
  using dir = tempDir("step-case");
  const bad = join(dir.path, "bad.json");
  writeFileSync(bad, "{");
  expect(() => loadStepCase(join(dir.path, "missing.json"))).toThrow(ConfigError);
  expect(() => loadStepCase(bad)).toThrow(/Cannot parse step case/);
});
