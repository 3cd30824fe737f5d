// The Gemini CLI driver (pinned 0.61.0). The original's `gemini -p <prompt> --output-format json
// [-m model]`, plus what this version needs: always `-m` (without it a router call picks the model
// first), `--approval-mode yolo` (headless default mode does not even offer the write and shell
// tools), a trusted work dir, and $HOME/.gemini/settings.json naming the API-key auth type (else the
// base URL env makes it "gateway" auth and it exits 41) with usage statistics, telemetry and
// updates off and attempts bounded. Parse: originals 6.5, plus the error JSON this version prints on
// stderr with an empty stdout. Gemini reports no cost and no turns.

import { guidanceFiles } from "../skills.ts";
import {
  AgentParseError,
  baseEnv,
  deepMerge,
  emptyMetrics,
  isRecord,
  join,
  jsonObjects,
  num,
  variantSettings,
} from "./_common.ts";
import type { AgentCommand, AgentMetrics, Driver, DriverInput } from "./driver.ts";

/** The model when a variant names none (passing one keeps the request sequence free of the router). */
export const DEFAULT_MODEL = "gemini-2.5-pro";

function command(input: DriverInput): AgentCommand {
  const home = input.home;
  const base: Record<string, unknown> = {
    security: { auth: { selectedType: "gemini-api-key" } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    // Default is 10 attempts with up to 30 s backoff; 3 rides out a blip and fails an outage fast.
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 3 },
    ...(input.maxTurns ? { model: { maxSessionTurns: input.maxTurns } } : {}),
  };
  const settings = deepMerge(base, variantSettings(input));
  return {
    argv: [
      input.bin ?? "gemini",
      // One argument, so a prompt that starts with "-" is still the prompt.
      `--prompt=${input.prompt}`,
      "--output-format",
      "json",
      "-m",
      input.model || DEFAULT_MODEL,
      "--approval-mode",
      "yolo",
    ],
    env: {
      ...baseEnv(home),
      GOOGLE_GEMINI_BASE_URL: input.modelBaseUrl,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      // The CLI otherwise re-executes itself once to raise node's heap limit: a second process, ~1 s.
      GEMINI_CLI_NO_RELAUNCH: "true",
    },
    secretEnv: { GEMINI_API_KEY: input.apiKeyEnvName },
    files: [
      {
        path: join(home, ".gemini", "settings.json"),
        content: `${JSON.stringify(settings, null, 2)}\n`,
        mode: 0o600,
      },
      // User-level skills (~/.gemini/skills) and ~/.gemini/GEMINI.md, never part of /work.
      ...guidanceFiles(input.guidance, {
        skillsDir: join(home, ".gemini", "skills"),
        instructionsFile: join(home, ".gemini", "GEMINI.md"),
      }),
    ],
    dirs: [join(home, "tmp")],
  };
}

/**
 * The run's JSON document: the first on stdout; else (an error exit prints it to stderr only) the
 * last on stderr with an `error` object, because the retry stack traces before it quote API errors.
 */
function document(stdout: string, stderr: string): Record<string, unknown> | undefined {
  const first = jsonObjects(stdout)[0];
  if (first) return first;
  return jsonObjects(stderr)
    .filter((d) => isRecord(d.error))
    .at(-1);
}

function parse(stdout: string, stderr: string): AgentMetrics {
  const m = emptyMetrics({ cost: false, turns: false, tokens: true });
  const doc = document(stdout, stderr);
  if (!doc) throw new AgentParseError("gemini: no JSON document in output", m);
  const stats = isRecord(doc.stats) ? doc.stats : {};
  const models = isRecord(stats.models) ? stats.models : {};
  const tools = isRecord(stats.tools) ? stats.tools : {};
  m.tokens = Object.values(models).reduce<number>(
    (sum, model) => sum + (isRecord(model) && isRecord(model.tokens) ? num(model.tokens.total) : 0),
    0,
  );
  m.toolErrors = num(tools.totalFail);
  m.toolCalls = num(tools.totalCalls);
  if (isRecord(doc.error)) {
    m.failed = true;
    m.error = typeof doc.error.message === "string" ? doc.error.message : "";
  }
  return m;
}

/** Gemini CLI: `gemini -p … --output-format json -m <model>`. */
export const gemini: Driver = {
  harness: "gemini",
  apiKeyEnvName: "GEMINI_API_KEY",
  wire: "gemini",
  command,
  parse,
};
