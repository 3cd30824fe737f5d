// The command, nop and oracle drivers as pure functions: the template's placeholders become quoted
// variable references (the prompt is never shell text), the metrics line's keys and refusals, the
// oracle's staged script, and which image each harness runs in.
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../../lib/core/errors.ts";
import { emptyMetrics } from "../../../lib/suite/agents/_common.ts";
import { nop, oracle, SOLUTION_NAME } from "../../../lib/suite/agents/builtin.ts";
import { commandDriver, renderTemplate } from "../../../lib/suite/agents/command.ts";
import { imageOf } from "../../../lib/suite/agents/image.ts";
import { AgentParseError, type DriverInput } from "../../../lib/suite/agents/index.ts";

const INPUT: DriverInput = {
  modelBaseUrl: "http://127.0.0.1:41800",
  apiKeyEnvName: "UNUSED",
  home: "/tmp/home",
  workDir: "/work",
  prompt: `it's "$(rm -rf /)"`,
  model: "m1",
  command: `agent --prompt {prompt} --file {prompt_file} --cwd {workdir} -m {model} --url {model_url} {other} \${HOME}`,
};

test.each([
  { template: "a {prompt} b", want: 'a "$PROCTOR_PROMPT" b' },
  { template: "{prompt_file}{prompt}", want: '"$PROCTOR_PROMPT_FILE""$PROCTOR_PROMPT"' },
  {
    template: "{model_url} {model} {workdir}",
    want: '"$PROCTOR_MODEL_URL" "$PROCTOR_MODEL" "$PROCTOR_WORKDIR"',
  },
  {
    template: `awk '{print}' {unknown} \${HOME} {{prompt}}`,
    want: `awk '{print}' {unknown} \${HOME} {"$PROCTOR_PROMPT"}`,
  },
  { template: 'say "{prompt}"', want: `say "\${PROCTOR_PROMPT}"` },
  { template: 'say "in {workdir} as {model}."', want: `say "in \${PROCTOR_WORKDIR} as \${PROCTOR_MODEL}."` },
  { template: "say '{prompt}' '{x}'", want: `say ''"$PROCTOR_PROMPT"'' '{x}'` },
  {
    template: 'cat "$(cat {prompt_file})" "{model}"',
    want: `cat "$(cat "$PROCTOR_PROMPT_FILE")" "\${PROCTOR_MODEL}"`,
  },
  { template: 'say \\"{prompt} "a\\"{model}"', want: `say \\""$PROCTOR_PROMPT" "a\\"\${PROCTOR_MODEL}"` },
])("renderTemplate($template)", ({ template, want }) => {
  expect(renderTemplate(template)).toEqual(want);
});

test("command: sh -c the rendered template; the prompt only in a variable and a file", () => {
  expect(commandDriver.command(INPUT)).toEqual({
    argv: [
      "sh",
      "-c",
      `agent --prompt "$PROCTOR_PROMPT" --file "$PROCTOR_PROMPT_FILE" --cwd "$PROCTOR_WORKDIR" -m "$PROCTOR_MODEL" --url "$PROCTOR_MODEL_URL" {other} \${HOME}`,
    ],
    env: {
      HOME: "/tmp/home",
      TMPDIR: "/tmp/home/tmp",
      NO_COLOR: "1",
      LANG: "C.UTF-8",
      PROCTOR_PROMPT: INPUT.prompt,
      PROCTOR_PROMPT_FILE: "/tmp/home/prompt.txt",
      PROCTOR_WORKDIR: "/work",
      PROCTOR_MODEL: "m1",
      PROCTOR_MODEL_URL: "http://127.0.0.1:41800",
    },
    secretEnv: {},
    files: [{ path: "/tmp/home/prompt.txt", content: INPUT.prompt, mode: 0o600 }],
    dirs: ["/tmp/home/tmp"],
  });
});

const UNREPORTED = { cost: false, turns: false, tokens: false, toolCalls: false, toolErrors: false };
const NOTHING = emptyMetrics(UNREPORTED);

describe("command: the optional last JSON line on stdout", () => {
  test.each([
    { name: "no output", stdout: "", want: NOTHING },
    { name: "a last line that is not JSON", stdout: '{"tokens": 5}\ndone\n', want: NOTHING },
    { name: "a last line that is a JSON array", stdout: "[1]\n", want: NOTHING },
    {
      name: "every key, trailing blank lines",
      stdout:
        'log\n{"version":1,"tokens":7,"costUSD":0.25,"turns":2,"toolCalls":4,"toolErrors":1,"extra":"x"}\n\n',
      want: {
        ...NOTHING,
        costUsd: 0.25,
        turns: 2,
        tokens: 7,
        toolCalls: 4,
        toolErrors: 1,
        reported: { cost: true, turns: true, tokens: true, toolCalls: true, toolErrors: true },
      },
    },
    {
      name: "some keys: the rest stay unreported (null), not 0",
      stdout: '{"tokens": 3}',
      want: { ...NOTHING, tokens: 3, reported: { ...UNREPORTED, tokens: true } },
    },
    {
      name: "an error is the agent's own failure",
      stdout: '{"error": "gave up"}\n',
      want: { ...NOTHING, failed: true, error: "gave up" },
    },
  ])("$name", ({ stdout, want }) => {
    expect(commandDriver.parse(stdout, "", 0)).toEqual(want);
  });

  test.each([
    {
      stdout: '{"tokens": -1}',
      message: "command: metrics line: tokens: Too small: expected number to be >=0",
    },
    {
      stdout: '{"costUSD": "1"}',
      message: "command: metrics line: costUSD: Invalid input: expected number, received string",
    },
    {
      stdout: '{"toolCalls": 1.5}',
      message: "command: metrics line: toolCalls: Invalid input: expected int, received number",
    },
    { stdout: '{"version": 2}', message: "command: metrics line: version: Invalid input: expected 1" },
  ])("refused: $stdout", ({ stdout, message }) => {
    let got: unknown;
    try {
      commandDriver.parse(stdout, "", 0);
    } catch (error) {
      got = error instanceof AgentParseError ? { message: error.message, metrics: error.metrics } : error;
    }
    expect(got).toEqual({ message, metrics: NOTHING });
  });
});

describe("nop and oracle", () => {
  const SPENT = {
    costUsd: 0,
    turns: 0,
    tokens: 0,
    toolCalls: 0,
    toolErrors: 0,
    durationMs: null,
    failed: false,
    reported: { cost: true, turns: true, tokens: true },
  };
  test("nop runs true and spends nothing", () => {
    expect({ cmd: nop.command(INPUT), metrics: nop.parse("", "", 0) }).toEqual({
      cmd: {
        argv: ["true"],
        env: { HOME: "/tmp/home", TMPDIR: "/tmp/home/tmp", NO_COLOR: "1", LANG: "C.UTF-8" },
        secretEnv: {},
        files: [],
        dirs: [],
      },
      metrics: SPENT,
    });
  });

  test("oracle stages the solution under HOME (outside /work) and execs it by its shebang", () => {
    const script = "#!/bin/sh\necho fixed\n";
    expect({
      cmd: oracle.command({ ...INPUT, solution: script }),
      metrics: oracle.parse("x", "", 0),
    }).toEqual({
      cmd: {
        argv: ["sh", "-c", 'chmod 700 "$1" && exec "$1"', "oracle", `/tmp/home/${SOLUTION_NAME}`],
        env: { HOME: "/tmp/home", TMPDIR: "/tmp/home/tmp", NO_COLOR: "1", LANG: "C.UTF-8" },
        secretEnv: {},
        files: [{ path: `/tmp/home/${SOLUTION_NAME}`, content: script, mode: 0o700 }],
        dirs: ["/tmp/home/tmp"],
      },
      metrics: SPENT,
    });
  });

  test("oracle without a solution: a ConfigError", () => {
    expect(() => oracle.command(INPUT)).toThrow(
      new ConfigError("Cannot run the oracle: the task has no reference solution (task.yaml key solution)"),
    );
  });
});

test.each([
  { v: { harness: "claude" as const, version: "2.1.197" }, want: "eval-claude:2.1.197" },
  { v: { harness: "codex" as const }, want: "eval-codex:latest" },
  { v: { harness: "command" as const }, want: "proctor-base:abc" },
  { v: { harness: "nop" as const }, want: "proctor-base:abc" },
  { v: { harness: "oracle" as const, image: "mine:1" }, want: "mine:1" },
  { v: { harness: "gemini" as const, image: "g:2" }, want: "g:2" },
])("imageOf($v.harness, image $v.image)", ({ v, want }) => {
  expect(imageOf(v, "proctor-base:abc")).toEqual(want);
});
