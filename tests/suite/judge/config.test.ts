// The judge's formats: the original's rubric files load as they are; every bad rubric is one line
// naming the file, the line, the field and what was expected; the suite's `judge:` key takes the
// original's keys and refuses a key sent in clear, an unknown wire and an unpinned model.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../../lib/core/errors.ts";
import { JudgeFile, loadRubric, rubricJsonSchema, secureUrl } from "../../../lib/suite/judge/config.ts";
import { parseWith, readYaml } from "../../../lib/suite/yaml.ts";
import { tempDir } from "../../support/tmp.ts";

const FIXTURES = join(import.meta.dirname, "../../fixtures/judge/evals/rubrics");

describe("loadRubric", () => {
  test("the original's testdata rubric", () => {
    const r = loadRubric(join(FIXTURES, "quality.yaml"));
    expect({ ...r, digest: r.digest.slice(0, 7) }).toEqual({
      id: "code-quality",
      version: "1",
      instructions: "Grade the agent's change for the task below.",
      criteria: [
        { name: "correctness", description: "The change fixes the bug without editing tests.", weight: 2 },
        { name: "minimality", description: "The change is minimal and idiomatic.", weight: 1 },
      ],
      passThreshold: 0.7,
      ref: "code-quality@1",
      digest: "sha256:",
      path: join(FIXTURES, "quality.yaml"),
    });
    expect(r.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test("the original's evals rubric (folded instructions, three criteria)", () => {
    const r = loadRubric(join(FIXTURES, "code-change-quality.yaml"));
    expect({ ref: r.ref, names: r.criteria.map((c) => [c.name, c.weight]), pass: r.passThreshold }).toEqual({
      ref: "code-change-quality@1",
      names: [
        ["correctness", 2],
        ["minimality", 1],
        ["idiom", 1],
      ],
      pass: 0.7,
    });
    expect(r.instructions).toStartWith(
      "You are reviewing a change a coding agent made to a small repository for the task shown.",
    );
  });

  test("defaults: no threshold (or 0) is 0.7, weight 0 is 1, an unquoted version stays its text", () => {
    using dir = tempDir("judge-rubric");
    const p = join(dir.path, "r.yaml");
    writeFileSync(p, "id: r\nversion: 1.10\npass_threshold: 0\ncriteria:\n  - {name: a, weight: 0}\n");
    const r = loadRubric(p);
    expect({
      version: r.version,
      pass: r.passThreshold,
      criteria: r.criteria,
      instructions: r.instructions,
    }).toEqual({
      version: "1.10",
      pass: 0.7,
      criteria: [{ name: "a", description: "", weight: 1 }],
      instructions: "",
    });
  });

  const bad = [
    { name: "no id", text: 'version: "1"\ncriteria: [{name: a}]\n', error: "1:1: rubric: id is required" },
    {
      name: "no version",
      text: "id: r\ncriteria: [{name: a}]\n",
      error: "1:1: rubric r: version is required",
    },
    { name: "no criteria", text: 'id: r\nversion: "1"\n', error: "1:1: rubric r: criteria is required" },
    {
      name: "empty criteria",
      text: 'id: r\nversion: "1"\ncriteria: []\n',
      error: "3:11: rubric r: criteria: expected at least 1 item, got none",
    },
    {
      name: "unknown key",
      text: 'id: r\nversion: "1"\nrubric: x\ncriteria: [{name: a}]\n',
      error: '3:1: rubric r: unknown key "rubric"',
    },
    {
      name: "unknown criterion key",
      text: 'id: r\nversion: "1"\ncriteria:\n  - {name: a, wieght: 2}\n',
      error: '4:15: rubric r: criteria[0]: unknown key "wieght": did you mean weight?',
    },
    {
      name: "threshold above 1",
      text: 'id: r\nversion: "1"\npass_threshold: 1.5\ncriteria: [{name: a}]\n',
      error: "3:17: rubric r: pass_threshold: expected <= 1, got 1.5",
    },
    {
      name: "negative threshold",
      text: 'id: r\nversion: "1"\npass_threshold: -0.1\ncriteria: [{name: a}]\n',
      error: "3:17: rubric r: pass_threshold: expected >= 0, got -0.1",
    },
    {
      name: "negative weight",
      text: 'id: r\nversion: "1"\ncriteria:\n  - {name: a, weight: -1}\n',
      error: "4:23: rubric r: criteria[0].weight: expected >= 0, got -1",
    },
    {
      name: "empty criterion name",
      text: 'id: r\nversion: "1"\ncriteria:\n  - {name: ""}\n',
      error: "4:12: rubric r: criteria[0].name is required",
    },
    {
      name: "duplicate criterion",
      text: 'id: r\nversion: "1"\ncriteria:\n  - {name: a}\n  - {name: a}\n',
      error: '5:12: rubric r: criteria[1].name: duplicate criterion "a"',
    },
    {
      name: "weight not a number",
      text: 'id: r\nversion: "1"\ncriteria:\n  - {name: a, weight: heavy}\n',
      error: '4:23: rubric r: criteria[0].weight: expected a number, got "heavy"',
    },
    {
      name: "a list, not a mapping",
      text: "- a\n",
      error: "1:1: rubric: expected a mapping at the top level, got a list",
    },
    {
      name: "invalid YAML",
      text: "id: [r\n",
      error:
        "2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    },
  ];
  for (const c of bad)
    test(`refuses: ${c.name}`, () => {
      using dir = tempDir("judge-rubric");
      const p = join(dir.path, "r.yaml");
      writeFileSync(p, c.text);
      let error: unknown;
      try {
        loadRubric(p);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect({ message: (error as Error).message }).toEqual({ message: `${p}:${c.error}` });
    });

  test("refuses a missing file, naming it", () => {
    expect(() => loadRubric("/nonexistent/rubric.yaml")).toThrow(
      new ConfigError('Cannot read rubric "/nonexistent/rubric.yaml": no such file'),
    );
  });
});

describe("secureUrl", () => {
  const cases: Array<[string, boolean]> = [
    ["https://gw.example", true],
    ["http://127.0.0.1:8080", true],
    ["http://localhost:1", true],
    ["http://[::1]:2", true],
    ["http://gw.example", false],
    ["http://127.0.0.1.example", false],
    ["http://localhost.example", false],
    ["ftp://x", false],
    ["gw.example", false],
  ];
  for (const [url, ok] of cases) test(`${url}: ${ok}`, () => expect(secureUrl(url)).toBe(ok));
});

describe("the suite's judge: key", () => {
  const Wrapper = z.object({ name: z.string(), judge: JudgeFile }).strict();
  const load = (text: string) => {
    using dir = tempDir("judge-key");
    const p = join(dir.path, "s.yaml");
    writeFileSync(p, text);
    try {
      return { ok: parseWith(readYaml(p, new Set()), Wrapper, "suite s").judge };
    } catch (e) {
      return { error: (e as Error).message.slice(p.length + 1) };
    }
  };

  test("the original's upgrade-gate judge block", () => {
    expect(
      load(
        "name: s\njudge:\n  url: https://ai.acme.example\n  wire: anthropic-messages\n  model: claude-sonnet-5-5\n  api_key_env: HALO_EVAL_GATEWAY_TOKEN\n  cache: .judge-cache\n",
      ),
    ).toEqual({
      ok: {
        url: "https://ai.acme.example",
        wire: "anthropic-messages",
        model: "claude-sonnet-5-5",
        api_key_env: "HALO_EVAL_GATEWAY_TOKEN",
        cache: ".judge-cache",
      },
    });
  });

  test("our wires and Bedrock's region", () => {
    expect(
      load(
        "name: s\njudge: {url: 'https://b.example', wire: bedrock-invoke, model: m-1, region: eu-west-1}\n",
      ),
    ).toEqual({
      ok: { url: "https://b.example", wire: "bedrock-invoke", model: "m-1", region: "eu-west-1" },
    });
  });

  const bad = [
    {
      name: "plain http to another host",
      judge: "{url: 'http://gw.example', wire: openai-responses, model: m}",
      error:
        '2:14: suite s: judge.url: expected an absolute https URL (plain http only to 127.0.0.1, ::1 or localhost), got "http://gw.example"',
    },
    {
      name: "an unknown wire",
      judge: "{url: 'https://gw', wire: grpc, model: m}",
      error:
        '2:34: suite s: judge.wire: expected one of "anthropic-messages", "openai-responses", "gemini-generate-content", "bedrock-invoke", got "grpc"',
    },
    {
      name: "a latest alias",
      judge: "{url: 'https://gw', wire: openai-responses, model: claude-sonnet-latest}",
      error:
        '2:59: suite s: judge.model: expected a pinned model id (no "latest" alias), got "claude-sonnet-latest"',
    },
    {
      name: "no model",
      judge: "{url: 'https://gw', wire: openai-responses}",
      error: "2:8: suite s: judge.model is required",
    },
    {
      name: "a key pasted as the variable name",
      judge: "{url: 'https://gw', wire: openai-responses, model: m, api_key_env: 'sk-abc def'}",
      error:
        '2:75: suite s: judge.api_key_env: expected the NAME of an environment variable (letters, digits, _), got "sk-abc def"',
    },
    {
      name: "an unknown key",
      judge: "{url: 'https://gw', wire: openai-responses, model: m, temperature: 1}",
      error: '2:62: suite s: judge: unknown key "temperature"',
    },
  ];
  for (const c of bad)
    test(`refuses ${c.name}`, () => expect(load(`name: s\njudge: ${c.judge}\n`)).toEqual({ error: c.error }));
});

test("schemas/judge-rubric.schema.json is the generated schema", () => {
  const path = join(import.meta.dirname, "../../../schemas/judge-rubric.schema.json");
  expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(rubricJsonSchema());
});
