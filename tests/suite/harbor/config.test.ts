// task.toml in both Harbor layouts: whole normalised values with Harbor's defaults; every key Harbor's
// TaskConfig reads honoured or refused in one line naming the file and the key; ${VAR} env templates
// resolved from the host, never serialised; one line naming the file and the field for each bad input.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Harbor's ${VAR} env templates, as task.toml writes them
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type HarborConfig,
  harborTaskJsonSchema,
  loadHarborConfig,
  parseHarborConfig,
} from "../../../lib/suite/harbor/config.ts";
import { HarborRefusal } from "../../../lib/suite/harbor/refusal.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const F = "/t/task.toml";

const DEFAULTS: HarborConfig = {
  layout: "1.0",
  tags: [],
  metadata: {},
  authors: [],
  agentTimeoutMs: 600_000,
  verifierTimeoutMs: 600_000,
  verifierEnv: {},
  solutionEnv: {},
  environmentEnv: {},
  buildTimeoutMs: 600_000,
  cpus: 1,
  memoryMb: 2048,
  storageMb: 10240,
  allowInternet: false,
  artifacts: [],
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
    expected: {
      ...DEFAULTS,
      layout: "1.1",
      name: "proctor/needs-internet",
      allowInternet: true,
      internetKey: "environment.allow_internet",
    },
  },
  {
    name: "Terminal-Bench 2's layout (tb-dataset/hello-file): deprecated sizes, free metadata",
    file: join(FIXTURES, "tb-dataset", "hello-file", "task.toml"),
    expected: {
      ...DEFAULTS,
      tags: ["file-operations", "shell"],
      metadata: {
        author_name: "Proctor fixtures",
        difficulty: "easy",
        category: "file-operations",
        expert_time_estimate_min: 1,
        junior_time_estimate_min: 5,
      },
      agentTimeoutMs: 120_000,
      verifierTimeoutMs: 60_000,
      buildTimeoutMs: 300_000,
      memoryMb: 1024,
      storageMb: 2048,
    },
  },
  {
    name: "metadata.tags and task.keywords, each once (tb-dataset/sum-numbers)",
    file: join(FIXTURES, "tb-dataset", "sum-numbers", "task.toml"),
    expected: {
      ...DEFAULTS,
      layout: "1.1",
      name: "proctor/sum-numbers",
      description: "Sum the numbers of a file",
      tags: ["arithmetic", "files", "shell"],
      metadata: { category: "data-processing" },
      authors: [{ name: "Proctor fixtures" }],
      agentTimeoutMs: 120_000,
      verifierTimeoutMs: 60_000,
      buildTimeoutMs: 300_000,
      memoryMb: 1024,
    },
  },
  {
    name: "a prebuilt docker_image beside its Dockerfile (layouts/prebuilt-image)",
    file: join(FIXTURES, "layouts", "prebuilt-image", "task.toml"),
    expected: {
      ...DEFAULTS,
      tags: ["shell"],
      metadata: { author_name: "Proctor fixtures", difficulty: "easy", category: "file-operations" },
      agentTimeoutMs: 120_000,
      verifierTimeoutMs: 60_000,
      buildTimeoutMs: 300_000,
      dockerImage: "proctor-fixtures/prebuilt-image:1.0",
      memoryMb: 1024,
      storageMb: 2048,
    },
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
  {
    name: "numeric users (Harbor: a name or a UID)",
    text: "[agent]\nuser = 1000\n[verifier]\nuser = 0",
    expected: { ...DEFAULTS, agentUser: "1000", verifierUser: "0" },
  },
  {
    name: "workdir, source, authors and the task's version",
    text: 'source = "tb2"\n[task]\nname = "o/t"\nversion = "2.0.1"\nauthors = [{ name = "A", email = "a@b" }, { name = "B" }]\n[environment]\nworkdir = "/srv/app"',
    expected: {
      ...DEFAULTS,
      name: "o/t",
      source: "tb2",
      authors: [{ name: "A", email: "a@b" }, { name: "B" }],
      workdir: "/srv/app",
    },
  },
  {
    name: "tags and keywords deduplicated, first place kept",
    text: '[metadata]\ntags = ["a", "b", "a"]\n[task]\nkeywords = ["b", "c", "a"]',
    expected: { ...DEFAULTS, tags: ["a", "b", "c"] },
  },
  {
    name: 'network_mode = "public" asks for the internet',
    text: '[environment]\nnetwork_mode = "public"',
    expected: { ...DEFAULTS, allowInternet: true, internetKey: "environment.network_mode" },
  },
  {
    name: "network_mode wins over the legacy allow_internet",
    text: '[environment]\nallow_internet = true\nnetwork_mode = "no-network"',
    expected: DEFAULTS,
  },
  {
    name: "both phases public by override",
    text: '[agent]\nnetwork_mode = "public"\n[verifier]\nnetwork_mode = "public"',
    expected: { ...DEFAULTS, allowInternet: true, internetKey: "agent.network_mode" },
  },
  {
    name: "a phase override equal to the environment's",
    text: '[environment]\nallow_internet = true\n[verifier]\nnetwork_mode = "public"\nenvironment_mode = "shared"',
    expected: { ...DEFAULTS, allowInternet: true, internetKey: "environment.allow_internet" },
  },
  {
    name: "what Harbor itself ignores without GPUs or steps: gpu_types, multi_step_reward_strategy",
    text: 'multi_step_reward_strategy = "final"\n[environment]\ngpus = 0\ngpu_types = ["H100"]\nos = "Linux"',
    expected: DEFAULTS,
  },
  {
    name: "artifacts, as paths and as tables",
    text: 'artifacts = ["/app/out.log", { source = "/app/report", destination = "report", exclude = ["*.tmp"] }, { source = "/x", service = "main" }]',
    expected: {
      ...DEFAULTS,
      artifacts: [
        { source: "/app/out.log", exclude: [] },
        { source: "/app/report", destination: "report", exclude: ["*.tmp"] },
        { source: "/x", exclude: [] },
      ],
    },
  },
])("$name", ({ text, expected }) => {
  expect(parseHarborConfig(text, F)).toEqual(expected);
});

test("env templates resolve from the host as Harbor's do, and serialise as written", () => {
  const text = [
    "[environment.env]",
    'A = "${HOST_A}"',
    'B = "${HOST_B:-fallback}"',
    'C = "literal ${HOST_A} inside"',
    'D = "${HOST_EMPTY:-unused}"',
    "[verifier.env]",
    'V = "${HOST_A}"',
    "[solution.env]",
    'S = "${HOST_B:-}"',
  ].join("\n");
  const c = parseHarborConfig(text, F, { HOST_A: "from-host", HOST_EMPTY: "" });
  expect({
    env: [c.environmentEnv, c.verifierEnv, c.solutionEnv],
    json: JSON.parse(JSON.stringify([c.environmentEnv, c.verifierEnv, c.solutionEnv])),
  }).toEqual({
    env: [
      { A: "from-host", B: "fallback", C: "literal ${HOST_A} inside", D: "" },
      { V: "from-host" },
      { S: "" },
    ],
    json: [
      { A: "${HOST_A}", B: "${HOST_B:-fallback}", C: "literal ${HOST_A} inside", D: "${HOST_EMPTY:-unused}" },
      { V: "${HOST_A}" },
      { S: "${HOST_B:-}" },
    ],
  });
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
    name: "a relative workdir",
    text: '[environment]\nworkdir = "app"',
    line: 'environment.workdir: expected an absolute path, got "app"',
  },
  {
    name: "an unknown network_mode",
    text: '[agent]\nnetwork_mode = "open"',
    line: 'agent.network_mode: expected one of "public"|"no-network"|"allowlist", got "open"',
  },
  {
    name: "a negative UID",
    text: "[verifier]\nuser = -1",
    line: "verifier.user: expected >= 0, got -1",
  },
  {
    name: "an env value that is no string",
    text: "[environment.env]\nPORT = 8080",
    line: "environment.env.PORT: expected a string, got 8080",
  },
  {
    name: "an artifact that is neither path nor table",
    text: "artifacts = [3]",
    line: "artifacts[0]: expected a string or a table, got 3",
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
  expect(refusal(text)).toEqual({ message: `Cannot load Harbor task "${F}": ${line}`, broken: true });
});

/** What parsing `text` threw: its line, and whether the task itself is at fault. */
function refusal(text: string, host: Record<string, string> = {}) {
  try {
    parseHarborConfig(text, F, host);
    return "loaded";
  } catch (error) {
    if (!(error instanceof HarborRefusal)) throw error;
    return { message: error.message, broken: error.broken };
  }
}

test.each([
  {
    name: "[[steps]] (multi-step tasks)",
    text: '[[steps]]\nname = "one"\n[[steps]]\nname = "two"',
    line: "steps: multi-step tasks ([[steps]]) are not supported here",
  },
  {
    name: "Windows containers",
    text: '[environment]\nos = "windows"',
    line: 'environment.os: "windows" containers are not supported here',
  },
  {
    name: "GPUs",
    text: "[environment]\ngpus = 1",
    line: "environment.gpus: GPUs are not supported here: expected 0, got 1",
  },
  {
    name: "TPUs",
    text: '[environment.tpu]\ntype = "v6e"\ntopology = "2x2"',
    line: "environment.tpu: TPUs are not supported here",
  },
  {
    name: "a separate verifier environment",
    text: '[verifier.environment]\ndocker_image = "v:1"',
    line: "verifier.environment: a separate verifier container is not supported here (the verifier runs in the agent's container)",
  },
  {
    name: "a separate verifier container by mode",
    text: '[verifier]\nenvironment_mode = "separate"',
    line: 'verifier.environment_mode: "separate" is not supported here (the verifier runs in the agent\'s container)',
  },
  {
    name: "collect hooks",
    text: '[[verifier.collect]]\ncommand = "git diff > /logs/artifacts/model.patch"',
    line: "verifier.collect: collect hooks are not run here",
  },
  {
    name: "a healthcheck",
    text: '[environment.healthcheck]\ncommand = "test -S /run/db.sock"',
    line: "environment.healthcheck: readiness checks are not run here",
  },
  {
    name: "MCP servers",
    text: '[[environment.mcp_servers]]\nname = "docs"\ntransport = "stdio"\ncommand = "docs-mcp"',
    line: "environment.mcp_servers: MCP servers are not set up for the agent here",
  },
  {
    name: "a skills directory",
    text: '[environment]\nskills_dir = "/skills"',
    line: "environment.skills_dir: skills are not installed for the agent here",
  },
  {
    name: "an artifact of another container",
    text: 'artifacts = [{ source = "/var/log/db.log", service = "db" }]',
    line: "artifacts[0].service: artifacts of another container need a compose environment, not supported here",
  },
  {
    name: "an allowlist",
    text: '[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.invalid"]',
    line: 'environment.network_mode: host allowlists (network_mode = "allowlist") are not enforced here',
  },
  {
    name: "a phase's allowed_hosts",
    text: '[verifier]\nallowed_hosts = ["pypi.invalid"]',
    line: 'verifier.allowed_hosts: host allowlists (network_mode = "allowlist") are not enforced here',
  },
  {
    name: "a verifier with the internet and an agent without",
    text: '[verifier]\nnetwork_mode = "public"',
    line: 'verifier.network_mode: the agent\'s network is "no-network" and the verifier\'s "public", but here both run in one container with one network',
  },
  {
    name: "an agent without the internet in a public environment",
    text: '[environment]\nallow_internet = true\n[agent]\nnetwork_mode = "no-network"',
    line: 'agent.network_mode: the agent\'s network is "no-network" and the verifier\'s "public", but here both run in one container with one network',
  },
  {
    name: "a host variable that is not set",
    text: '[environment.env]\nAPI_KEY = "${PROCTOR_TEST_UNSET_KEY}"',
    line: "environment.env.API_KEY: ${PROCTOR_TEST_UNSET_KEY} is not set on this host (export PROCTOR_TEST_UNSET_KEY, or give a default: ${PROCTOR_TEST_UNSET_KEY:-value})",
  },
  {
    name: "a verifier variable that is not set",
    text: '[verifier.env]\nJUDGE_KEY = "${PROCTOR_TEST_UNSET_KEY}"',
    line: "verifier.env.JUDGE_KEY: ${PROCTOR_TEST_UNSET_KEY} is not set on this host (export PROCTOR_TEST_UNSET_KEY, or give a default: ${PROCTOR_TEST_UNSET_KEY:-value})",
  },
])("refuses $name in one line naming the key: not the task's fault", ({ text, line }) => {
  expect(refusal(text)).toEqual({ message: `Cannot load Harbor task "${F}": ${line}`, broken: false });
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
