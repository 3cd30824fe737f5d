// The `command` harness: any agent, started from the variant's shell command template. The template's
// placeholders become quoted references to variables the runner sets in the agent's exec environment
// (bare, inside double or inside single quotes alike), so a prompt full of quotes, `$(...)` or
// newlines reaches the agent as one word and is never parsed as shell. Metrics come from an optional last JSON line on stdout (CommandMetrics);
// what it does not carry is unreported (null), never 0.
import { z } from "zod";
import { guidanceFiles } from "../skills.ts";
import { AgentParseError, baseEnv, emptyMetrics, isRecord, join } from "./_common.ts";
import type { AgentCommand, AgentMetrics, Driver, DriverInput } from "./driver.ts";

/** Each placeholder and the variable it stands for. */
export const PLACEHOLDERS = {
  prompt: "PROCTOR_PROMPT",
  prompt_file: "PROCTOR_PROMPT_FILE",
  workdir: "PROCTOR_WORKDIR",
  model: "PROCTOR_MODEL",
  model_url: "PROCTOR_MODEL_URL",
} as const;

const PLACEHOLDER = /\{(prompt_file|prompt|workdir|model_url|model)\}/y;

/**
 * The template with every `{name}` placeholder replaced by a reference to its variable that the
 * shell expands as one word wherever it stands: `"$VAR"` bare, `${VAR}` inside double quotes, and
 * `'"$VAR"'` inside single quotes (closed, the quoted variable, reopened). A `$(...)` starts unquoted
 * again, as the shell parses it. Other text is kept verbatim.
 */
export function renderTemplate(template: string): string {
  let out = "";
  let quote = "";
  const outer: string[] = []; // the quoting around each open $(...)
  for (let i = 0; i < template.length; ) {
    PLACEHOLDER.lastIndex = i;
    const m = PLACEHOLDER.exec(template);
    if (m) {
      const name = PLACEHOLDERS[m[1] as keyof typeof PLACEHOLDERS];
      out += quote === "'" ? `'"$${name}"'` : quote === '"' ? `\${${name}}` : `"$${name}"`;
      i += m[0].length;
      continue;
    }
    const c = template[i]!;
    if (c === "\\" && quote !== "'") {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "$" && template[i + 1] === "(" && quote !== "'") {
      outer.push(quote);
      quote = "";
      out += "$(";
      i += 2;
      continue;
    }
    if (c === ")" && quote === "" && outer.length > 0) quote = outer.pop()!;
    else if (quote === "" && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = "";
    out += c;
    i++;
  }
  return out;
}

const count = z.number().int().min(0);

/** The optional last stdout line of a command agent: what it spent and did (unknown keys ignored). */
export const CommandMetrics = z.looseObject({
  version: z.literal(1).optional(),
  tokens: count.optional().describe("model tokens, input + output"),
  costUSD: z.number().min(0).optional().describe("what the run cost in US dollars"),
  turns: count.optional().describe("model turns"),
  toolCalls: count.optional().describe("tool calls the agent made"),
  toolErrors: count.optional().describe("tool calls that failed"),
  error: z.string().optional().describe("set when the agent itself failed: the trial's error"),
});
export type CommandMetrics = z.infer<typeof CommandMetrics>;

function command(input: DriverInput): AgentCommand {
  const promptFile = join(input.home, "prompt.txt");
  const env: Record<string, string> = {
    ...baseEnv(input.home),
    PROCTOR_PROMPT: input.prompt,
    PROCTOR_PROMPT_FILE: promptFile,
    PROCTOR_WORKDIR: input.workDir,
    PROCTOR_MODEL: input.model ?? "",
  };
  if (input.modelBaseUrl !== "") env.PROCTOR_MODEL_URL = input.modelBaseUrl;
  // A command agent finds the variant's skills and instructions where these two variables say.
  const at = {
    skillsDir: join(input.home, ".proctor", "skills"),
    instructionsFile: join(input.home, ".proctor", "INSTRUCTIONS.md"),
  };
  if (input.guidance?.skills !== undefined) env.PROCTOR_SKILLS_DIR = at.skillsDir;
  if (input.guidance?.instructions !== undefined) env.PROCTOR_INSTRUCTIONS_FILE = at.instructionsFile;
  return {
    argv: ["sh", "-c", renderTemplate(input.command ?? "")],
    env,
    secretEnv: {},
    files: [{ path: promptFile, content: input.prompt, mode: 0o600 }, ...guidanceFiles(input.guidance, at)],
    dirs: [join(input.home, "tmp")],
  };
}

/** The last non-blank line of stdout, when it is a JSON object. */
function lastJsonLine(stdout: string): unknown {
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  const last = lines.at(-1)?.trim();
  if (last === undefined || !last.startsWith("{")) return undefined;
  try {
    return JSON.parse(last) as unknown;
  } catch {
    return undefined;
  }
}

function parse(stdout: string): AgentMetrics {
  const m = emptyMetrics({ cost: false, turns: false, tokens: false, toolCalls: false, toolErrors: false });
  const line = lastJsonLine(stdout);
  if (!isRecord(line)) return m;
  const r = CommandMetrics.safeParse(line);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const at = issue.path.map(String).join(".") || "top level";
    throw new AgentParseError(`command: metrics line: ${at}: ${issue.message}`, m);
  }
  const got = r.data;
  return {
    ...m,
    costUsd: got.costUSD ?? null,
    turns: got.turns ?? null,
    tokens: got.tokens ?? null,
    toolCalls: got.toolCalls ?? 0,
    toolErrors: got.toolErrors ?? 0,
    ...(got.error !== undefined ? { failed: true, error: got.error } : {}),
    reported: {
      cost: got.costUSD !== undefined,
      turns: got.turns !== undefined,
      tokens: got.tokens !== undefined,
      toolCalls: got.toolCalls !== undefined,
      toolErrors: got.toolErrors !== undefined,
    },
  };
}

/** Any agent: `sh -c <rendered template>` with /work as cwd; no API key of its own (use --pass-env). */
export const commandDriver: Driver = { harness: "command", apiKeyEnvName: "", command, parse };
