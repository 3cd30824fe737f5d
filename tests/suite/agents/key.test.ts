// bridgedKey (lib/suite/agents/key.ts): for each driver, the agent's env gets the placeholder under
// the variable its CLI reads, the bridge gets the credential (the driver's protocol and the host
// variable), and --pass-env names still reach the exec by name, never shadowed by a placeholder.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { type DriverInput, driverFor } from "../../../lib/suite/agents/index.ts";
import { type BridgedKey, bridgedKey } from "../../../lib/suite/agents/key.ts";
import type { HarnessName } from "../../../lib/suite/suite.ts";
import { PLACEHOLDER_KEY } from "../../../lib/wire/credential.ts";

const INPUT: DriverInput = {
  modelBaseUrl: "http://127.0.0.1:8080",
  apiKeyEnvName: "HOST_KEY",
  home: "/h",
  workDir: "/work",
  prompt: "p",
  command: "agent {prompt}",
};

beforeEach(() => {
  process.env.PROCTOR_KEY_TEST_SET = "set";
});
afterEach(() => {
  delete process.env.PROCTOR_KEY_TEST_SET;
});

/** What bridgedKey gives beyond the command's own env: the keys it added, the credential, the names. */
function outcome(k: BridgedKey, env: Record<string, string>) {
  return {
    added: Object.fromEntries(Object.entries(k.env).filter(([n, v]) => env[n] !== v)),
    credential: k.credential ?? null,
    secretEnvNames: k.secretEnvNames,
  };
}

test.each<{
  harness: HarnessName;
  passEnv: string[];
  want: ReturnType<typeof outcome>;
}>([
  {
    harness: "claude",
    passEnv: [],
    want: {
      added: { ANTHROPIC_API_KEY: PLACEHOLDER_KEY },
      credential: { wire: "anthropic", keyEnv: "HOST_KEY" },
      secretEnvNames: [],
    },
  },
  {
    harness: "codex",
    passEnv: ["PROCTOR_KEY_TEST_SET", "PROCTOR_KEY_TEST_UNSET"],
    want: {
      added: { HOST_KEY: PLACEHOLDER_KEY },
      credential: { wire: "responses", keyEnv: "HOST_KEY" },
      secretEnvNames: ["PROCTOR_KEY_TEST_SET"],
    },
  },
  {
    harness: "gemini",
    passEnv: [],
    want: {
      added: { GEMINI_API_KEY: PLACEHOLDER_KEY },
      credential: { wire: "gemini", keyEnv: "HOST_KEY" },
      secretEnvNames: [],
    },
  },
  {
    // The user's explicit --pass-env of the CLI's own variable wins: the real value by name, no placeholder.
    harness: "gemini",
    passEnv: ["GEMINI_API_KEY"],
    want: { added: {}, credential: { wire: "gemini", keyEnv: "HOST_KEY" }, secretEnvNames: [] },
  },
  {
    // A command agent has no key of ours: its own (--pass-env) passes through the bridge unchanged.
    harness: "command",
    passEnv: ["PROCTOR_KEY_TEST_SET"],
    want: { added: {}, credential: null, secretEnvNames: ["PROCTOR_KEY_TEST_SET"] },
  },
  { harness: "nop", passEnv: [], want: { added: {}, credential: null, secretEnvNames: [] } },
])("$harness with --pass-env $passEnv", ({ harness, passEnv, want }) => {
  const driver = driverFor(harness);
  const inv = driver.command(INPUT);
  expect(outcome(bridgedKey(driver, inv, passEnv), inv.env)).toEqual(want);
});

test.each<{
  name: string;
  driver: Parameters<typeof bridgedKey>[0];
  secretEnv: Record<string, string>;
  error: string;
}>([
  {
    name: "a key but no protocol",
    driver: { harness: "claude" },
    secretEnv: { K: "HOST_KEY" },
    error: "Cannot bridge the claude agent's key: its driver names no wire protocol to put HOST_KEY on with",
  },
  {
    name: "two host variables",
    driver: { harness: "claude", wire: "anthropic" },
    secretEnv: { A: "KEY_A", B: "KEY_B" },
    error:
      "Cannot bridge the claude agent's key: it names 2 host variables (KEY_A, KEY_B); the bridge puts one on",
  },
])("refused: $name", ({ driver, secretEnv, error }) => {
  expect(() => bridgedKey(driver, { env: {}, secretEnv }, [])).toThrow(error);
});
