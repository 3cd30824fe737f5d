// task.toml in both Harbor layouts: whole normalised values with Harbor's defaults, and one line naming
// the file and the field for each bad input.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type HarborConfig,
  harborTaskJsonSchema,
  loadHarborConfig,
  parseHarborConfig,
} from "../../../lib/suite/harbor/config.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const F = "/t/task.toml";

const DEFAULTS: HarborConfig = {
  layout: "1.0",
  tags: [],
  metadata: {},
  agentTimeoutMs: 600_000,
  verifierTimeoutMs: 600_000,
  verifierEnv: {},
  solutionEnv: {},
  buildTimeoutMs: 600_000,
  cpus: 1,
  memoryMb: 2048,
  storageMb: 10240,
  allowInternet: false,
};

test.each<{ name: string; file: string; expected: HarborConfig }>([
  {
    name: "the 1.0 layout (fix-add)",
    file: join(FIXTURES, "fix-add", "task.toml"),
    expected: {
      ...DEFAULTS,
      tags: ["shell", "bugfix"],
      metadata: { author_name: "Proctor fixtures", difficulty: "easy", category: "debugging" },
      agentTimeoutMs: 120_000,
      verifierTimeoutMs: 60_000,
      buildTimeoutMs: 300_000,
      memoryMb: 1024,
      storageMb: 2048,
    },
  },
  {
    name: "the 1.1 layout (partial-credit): [task], verifier env and user",
    file: join(FIXTURES, "partial-credit", "task.toml"),
    expected: {
      ...DEFAULTS,
      layout: "1.1",
      name: "proctor/partial-credit",
      description: "Write three lines; each one is a third of the reward",
      tags: ["files", "partial"],
      metadata: { category: "programming" },
      agentTimeoutMs: 120_000,
      verifierTimeoutMs: 60_000,
      verifierEnv: { EXPECTED_LINES: "3" },
      verifierUser: "root",
      buildTimeoutMs: 300_000,
      memoryMb: 1024,
    },
  },
  {
    name: "allow_internet (needs-internet)",
    file: join(FIXTURES, "needs-internet", "task.toml"),
    expected: { ...DEFAULTS, layout: "1.1", name: "proctor/needs-internet", allowInternet: true },
  },
])("$name", ({ file, expected }) => {
  expect(loadHarborConfig(file)).toEqual(expected);
});

test.each<{ name: string; text: string; expected: HarborConfig }>([
  { name: "empty file: Harbor's defaults", text: "", expected: DEFAULTS },
  {
    name: "deprecated sizes, agent user, docker_image, unknown keys kept out",
    text: '[environment]\nmemory = "4G"\nstorage = "512M"\ndocker_image = "x:1"\nfuture = 1\n[agent]\nuser = "agent"\n[solution]\nenv = { K = "v" }',
    expected: {
      ...DEFAULTS,
      memoryMb: 4096,
      storageMb: 512,
      dockerImage: "x:1",
      agentUser: "agent",
      solutionEnv: { K: "v" },
    },
  },
])("$name", ({ text, expected }) => {
  expect(parseHarborConfig(text, F)).toEqual(expected);
});

test.each([
  { name: "invalid TOML", text: "version = ", line: "1:11: invalid TOML: invalid value" },
  {
    name: "a timeout that is a string",
    text: '[agent]\ntimeout_sec = "10m"',
    line: 'agent.timeout_sec: expected a number, got "10m"',
  },
  {
    name: "a negative CPU count",
    text: "[environment]\ncpus = -1",
    line: "environment.cpus: expected > 0, got -1",
  },
  {
    name: "memory_mb not an integer",
    text: "[environment]\nmemory_mb = 1.5",
    line: "environment.memory_mb: expected an integer, got 1.5",
  },
  {
    name: "a size Harbor cannot read",
    text: '[environment]\nmemory = "lots"',
    line: 'environment.memory: expected a size like "2G" or "512M", got "lots"',
  },
  {
    name: "allow_internet not a boolean",
    text: '[environment]\nallow_internet = "yes"',
    line: 'environment.allow_internet: expected a boolean, got "yes"',
  },
  {
    name: "GPUs",
    text: "[environment]\ngpus = 1",
    line: "environment.gpus: GPUs are not supported here: expected 0, got 1",
  },
  {
    name: "a verifier env variable name",
    text: '[verifier]\nenv = { "1X" = "v" }',
    line: 'verifier.env.1X: expected a variable name, got "1X"',
  },
  { name: "version 2", text: 'version = "2.0"', line: 'version: expected "1.0", got "2.0"' },
  {
    name: "schema_version 2",
    text: 'schema_version = "2.0"',
    line: 'schema_version: expected "1.1" or another 1.x, got "2.0"',
  },
  {
    name: "both layouts",
    text: 'version = "1.0"\nschema_version = "1.1"',
    line: 'version: give either version = "1.0" or schema_version, not both',
  },
  { name: "a section that is no table", text: "agent = 3", line: "agent: expected a table, got 3" },
])("refuses $name in one line naming the file and field", ({ text, line }) => {
  expect(() => parseHarborConfig(text, F)).toThrow(`Cannot load Harbor task "${F}": ${line}`);
});

test("a missing task.toml is one line naming it", () => {
  expect(() => loadHarborConfig("/nonexistent/task.toml")).toThrow(
    'Cannot load Harbor task "/nonexistent/task.toml": no such file',
  );
});

test("schemas/harbor-task.schema.json is the generated schema", () => {
  const committed = JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "harbor-task.schema.json"), "utf8"));
  expect(committed).toEqual(harborTaskJsonSchema());
});
