import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import {
  type AgentMetrics,
  AgentParseError,
  type DriverInput,
  driverFor,
  materialize,
  readSettings,
  secretValues,
  settingsObject,
} from "../../../lib/suite/agents/index.ts";
import { CLI_HARNESSES, type Harness } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";

const FIX = join(import.meta.dirname, "..", "..", "fixtures", "agent");
const read = (name: string) => readFileSync(join(FIX, name), "utf8");

const INPUT: DriverInput = {
  modelBaseUrl: "http://127.0.0.1:8080",
  apiKeyEnvName: "HOST_KEY",
  home: "/h",
  workDir: "/work",
  prompt: "fix it",
};

const CLAUDE_ENV = {
  HOME: "/h",
  TMPDIR: "/h/tmp",
  NO_COLOR: "1",
  LANG: "C.UTF-8",
  CLAUDE_CODE_TMPDIR: "/h/tmp",
  ANTHROPIC_BASE_URL: "http://127.0.0.1:8080",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_MAX_RETRIES: "2",
  API_TIMEOUT_MS: "300000",
};

const CODEX_TOML = (model: string, extra = "") => `model = "${model}"
model_provider = "proctor"
check_for_update_on_startup = false${extra}

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false

[model_providers.proctor]
name = "Proctor model server"
base_url = "http://127.0.0.1:8080/v1"
env_key = "HOST_KEY"
wire_api = "responses"
request_max_retries = 2
stream_max_retries = 2
stream_idle_timeout_ms = 300000
`;

const GEMINI_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 3 },
};

describe("command", () => {
  test("claude: the original's flags minus --restricted, Bash allowed, settings via --settings", () => {
    expect(
      driverFor("claude").command({
        ...INPUT,
        model: "sonnet",
        budgetUsd: 0.5,
        settings: { env: { A: "1" } },
      }),
    ).toEqual({
      argv: [
        "claude",
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--max-turns",
        "30",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash",
        "--no-session-persistence",
        "--settings",
        "/h/.claude/settings.json",
        "--max-budget-usd",
        "0.5",
        "--model",
        "sonnet",
        "--",
        "fix it",
      ],
      env: CLAUDE_ENV,
      secretEnv: { ANTHROPIC_API_KEY: "HOST_KEY" },
      files: [
        { path: "/h/.claude/settings.json", content: '{\n  "env": {\n    "A": "1"\n  }\n}\n', mode: 0o600 },
      ],
      dirs: ["/h/tmp"],
    });
  });

  test.each([
    { name: "max turns", extra: { maxTurns: 7 }, tail: ["--max-turns", "7"] },
    {
      name: "tiny budget without an exponent",
      extra: { budgetUsd: 1e-7 },
      tail: ["--max-budget-usd", "0.0000001"],
    },
  ])("claude: $name", ({ extra, tail }) => {
    const argv = driverFor("claude")
      .command({ ...INPUT, ...extra })
      .argv.join(" ");
    expect(argv).toContain(tail.join(" "));
  });

  test("codex: custom Responses provider in config.toml, plugins off, prompt on stdin", () => {
    expect(driverFor("codex").command({ ...INPUT, model: "gpt-5" })).toEqual({
      argv: [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--sandbox",
        "workspace-write",
        "-m",
        "gpt-5",
        "-",
      ],
      env: { HOME: "/h", TMPDIR: "/h/tmp", NO_COLOR: "1", LANG: "C.UTF-8", CODEX_HOME: "/h/.codex" },
      secretEnv: { HOST_KEY: "HOST_KEY" },
      files: [{ path: "/h/.codex/config.toml", content: CODEX_TOML("gpt-5"), mode: 0o600 }],
      dirs: ["/h/tmp"],
      stdin: "fix it",
    });
  });

  test("codex: settings TOML cannot hold -> ConfigError", () => {
    expect(() => driverFor("codex").command({ ...INPUT, settings: { a: { b: null } } })).toThrow(
      new ConfigError(
        "Cannot use the variant's settings as codex config.toml: cannot write a.b as TOML: null",
      ),
    );
  });

  test("codex: no model -> a catalog slug in the config and no -m; sandbox_mode from settings drops --sandbox", () => {
    const cmd = driverFor("codex").command({ ...INPUT, settings: '{"sandbox_mode":"danger-full-access"}' });
    expect({ argv: cmd.argv, config: cmd.files[0]?.content }).toEqual({
      argv: ["codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral", "-"],
      config: CODEX_TOML("gpt-5.5", '\nsandbox_mode = "danger-full-access"'),
    });
  });

  test("gemini: -m always, yolo, API-key auth and no telemetry in settings, turn cap merged", () => {
    expect(
      driverFor("gemini").command({
        ...INPUT,
        maxTurns: 4,
        settings: { general: { maxAttempts: 1 }, ui: {} },
      }),
    ).toEqual({
      argv: [
        "gemini",
        "--prompt=fix it",
        "--output-format",
        "json",
        "-m",
        "gemini-2.5-pro",
        "--approval-mode",
        "yolo",
      ],
      env: {
        HOME: "/h",
        TMPDIR: "/h/tmp",
        NO_COLOR: "1",
        LANG: "C.UTF-8",
        GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:8080",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
      },
      secretEnv: { GEMINI_API_KEY: "HOST_KEY" },
      files: [
        {
          path: "/h/.gemini/settings.json",
          content: `${JSON.stringify(
            {
              ...GEMINI_SETTINGS,
              general: { ...GEMINI_SETTINGS.general, maxAttempts: 1 },
              model: { maxSessionTurns: 4 },
              ui: {},
            },
            null,
            2,
          )}\n`,
          mode: 0o600,
        },
      ],
      dirs: ["/h/tmp"],
    });
  });

  test.each(CLI_HARNESSES)("%s: no secret value and no key name outside secretEnv/config", (h) => {
    const cmd = driverFor(h).command({ ...INPUT, apiKeyEnvName: "SECRET_NAME_X", bin: "/opt/bin/x" });
    const visible = JSON.stringify({ argv: cmd.argv, env: cmd.env, stdin: cmd.stdin });
    expect({ visible: visible.includes("SECRET_NAME_X"), bin: cmd.argv[0] }).toEqual({
      visible: false,
      bin: "/opt/bin/x",
    });
  });

  test.each([
    { name: "not JSON", settings: "{nope", message: /^Cannot read settings the variant's settings: / },
    { name: "an array", settings: "[1]", message: /expected a JSON object$/ },
    { name: "null", settings: "null", message: /expected a JSON object$/ },
  ])("settings that are $name -> ConfigError", ({ settings, message }) => {
    for (const h of CLI_HARNESSES) {
      expect(() => driverFor(h).command({ ...INPUT, settings })).toThrow(ConfigError);
      expect(() => driverFor(h).command({ ...INPUT, settings })).toThrow(message);
    }
  });
});

const REPORTED = {
  claude: { cost: true, turns: true, tokens: true },
  codex: { cost: false, turns: true, tokens: true },
  gemini: { cost: false, turns: false, tokens: true },
};
const metrics = (h: Harness, m: Partial<AgentMetrics>): AgentMetrics => ({
  costUsd: null,
  turns: null,
  tokens: null,
  toolCalls: 0,
  toolErrors: 0,
  durationMs: null,
  failed: false,
  reported: REPORTED[h],
  ...m,
});

describe("parse: the original driver tests (7.6)", () => {
  test.each([
    {
      harness: "claude" as const,
      file: "original-claude.jsonl",
      want: metrics("claude", {
        costUsd: 0.42,
        turns: 7,
        tokens: 115,
        toolCalls: 2,
        toolErrors: 1,
        durationMs: 9000,
      }),
    },
    {
      harness: "codex" as const,
      file: "original-codex.jsonl",
      want: metrics("codex", {
        turns: 1,
        tokens: 12,
        toolCalls: 2,
        toolErrors: 1,
        failed: true,
        error: "boom",
      }),
    },
    {
      harness: "gemini" as const,
      file: "original-gemini.json",
      want: metrics("gemini", { tokens: 50, toolCalls: 3, toolErrors: 1 }),
    },
  ])("$harness", ({ harness, file, want }) => {
    expect(driverFor(harness).parse(read(file), "", 0)).toEqual(want);
  });

  test.each([
    {
      name: "claude error_max_turns",
      h: "claude" as const,
      out: '{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":30}',
      want: metrics("claude", {
        costUsd: 0,
        turns: 30,
        tokens: 0,
        durationMs: 0,
        failed: true,
        error: "error_max_turns",
      }),
    },
    {
      name: "claude: the last result wins",
      h: "claude" as const,
      out: '{"type":"result","subtype":"error_max_turns"}\n{"type":"result","subtype":"success","total_cost_usd":1}',
      want: metrics("claude", { costUsd: 1, turns: 0, tokens: 0, durationMs: 0 }),
    },
    {
      name: "codex error event",
      h: "codex" as const,
      out: '{"type":"error","message":"bad key"}',
      want: metrics("codex", { turns: 0, tokens: 0, failed: true, error: "bad key" }),
    },
    {
      name: "gemini error object after log noise",
      h: "gemini" as const,
      out: 'noise {not json}\n{"error":{"message":"quota"}} trailing',
      want: metrics("gemini", { tokens: 0, failed: true, error: "quota" }),
    },
  ])("$name", ({ h, out, want }) => {
    expect(driverFor(h).parse(out, "", 1)).toEqual(want);
  });

  test.each([
    {
      h: "claude" as const,
      out: '{"type":"assistant","message":{"content":[{"type":"tool_use"}]}}',
      msg: "claude: no result message in stream output",
      partial: { toolCalls: 1 },
    },
    { h: "codex" as const, out: "{}", msg: "codex: no recognised events in output", partial: {} },
    { h: "gemini" as const, out: "no json at all", msg: "gemini: no JSON document in output", partial: {} },
    { h: "gemini" as const, out: "", msg: "gemini: no JSON document in output", partial: {} },
  ])("$h: unreadable output -> AgentParseError '$msg' with what was read", ({ h, out, msg, partial }) => {
    let caught: unknown;
    try {
      driverFor(h).parse(out, "", 0);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AgentParseError);
    expect({
      message: (caught as AgentParseError).message,
      metrics: (caught as AgentParseError).metrics,
    }).toEqual({
      message: msg,
      metrics: metrics(h, partial),
    });
  });
});

describe("parse: outputs recorded from the real CLIs (tests/support/agent-run.ts)", () => {
  const API_500 =
    "API Error: 500 mock error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway";
  test.each([
    {
      name: "claude-tool",
      want: metrics("claude", {
        costUsd: 0.0015,
        turns: 2,
        tokens: 220,
        toolCalls: 1,
        durationMs: "number" as never,
      }),
    },
    {
      name: "claude-transient500",
      want: metrics("claude", {
        costUsd: 0.0015,
        turns: 2,
        tokens: 220,
        toolCalls: 1,
        durationMs: "number" as never,
      }),
    },
    {
      name: "claude-error500",
      want: metrics("claude", {
        costUsd: 0,
        turns: 1,
        tokens: 0,
        durationMs: "number" as never,
        failed: true,
        error: API_500,
      }),
    },
    { name: "codex-tool", want: metrics("codex", { turns: 1, tokens: 220, toolCalls: 1 }) },
    { name: "codex-transient500", want: metrics("codex", { turns: 1, tokens: 220, toolCalls: 1 }) },
    {
      name: "codex-error500",
      want: metrics("codex", {
        turns: 0,
        tokens: 0,
        failed: true,
        error: "We’re currently experiencing high demand, which may cause temporary errors.",
      }),
    },
    { name: "gemini-tool", want: metrics("gemini", { tokens: 220, toolCalls: 1 }) },
    { name: "gemini-transient500", want: metrics("gemini", { tokens: 220, toolCalls: 1 }) },
    {
      name: "gemini-error500",
      want: metrics("gemini", {
        tokens: 0,
        failed: true,
        error: '{"error":{"code":500,"message":"mock error","status":"INTERNAL"}}',
      }),
    },
  ])("$name", ({ name, want }) => {
    const h = name.split("-")[0] as Harness;
    const got = driverFor(h).parse(
      read(`${name}.stdout`),
      read(`${name}.stderr`),
      Number(read(`${name}.exit`)),
    );
    // Claude's durations and its error text (which names the mock's port) vary per recording.
    const norm = {
      ...got,
      ...(got.durationMs !== null ? { durationMs: "number" } : {}),
      ...(got.error?.startsWith(API_500) ? { error: API_500 } : {}),
    };
    expect(norm).toEqual(want);
  });
});

describe("runner helpers", () => {
  test("secretValues maps CLI names to the runner's values; a missing one names the variable only", () => {
    const cmd = driverFor("claude").command(INPUT);
    expect(secretValues(cmd, { HOST_KEY: "sk-1" })).toEqual({ ANTHROPIC_API_KEY: "sk-1" });
    expect(() => secretValues(cmd, { HOST_KEY: "" })).toThrow(
      "Cannot start the agent: environment variable HOST_KEY (the model API key) is not set",
    );
  });

  test("materialize writes files 0600 and dirs 0700", () => {
    using dir = tempDir("proctor-agent-mat");
    const cmd = driverFor("gemini").command({ ...INPUT, home: join(dir.path, "home") });
    materialize(cmd);
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect({
      settings: mode(join(dir.path, "home", ".gemini", "settings.json")),
      tmp: mode(join(dir.path, "home", "tmp")),
      content: JSON.parse(readFileSync(join(dir.path, "home", ".gemini", "settings.json"), "utf8")),
    }).toEqual({ settings: 0o600, tmp: 0o700, content: GEMINI_SETTINGS });
  });

  test.each([
    {
      name: "missing file",
      content: undefined,
      message: /^Cannot read settings ".*settings.json": no such file$/,
    },
    { name: "bad JSON", content: "{", message: /^Cannot read settings ".*settings.json": / },
    {
      name: "a string",
      content: '"x"',
      message: /^Cannot read settings ".*settings.json": expected a JSON object$/,
    },
  ])("readSettings: $name -> ConfigError naming the file", ({ content, message }) => {
    using dir = tempDir("proctor-agent-settings");
    const path = join(dir.path, "settings.json");
    if (content !== undefined) writeFileSync(path, content);
    expect(() => readSettings(path)).toThrow(message);
  });

  test("settingsObject passes objects through", () => {
    expect(settingsObject({ a: 1 })).toEqual({ a: 1 });
  });
});
