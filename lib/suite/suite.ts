// The suite.yaml format of the suite lane (evals/suites/*.yaml, the original halo eval's format):
// one strict zod schema, loadSuite() at the boundary. A suite names tasks (directories under the
// tasks root, by default <suite dir>/../tasks) and the variants to compare (harness x version x model,
// optionally a rendered settings file inside the suite's directory), the control and the repeats.
// The newer original's keys load too: seed, k, gate, judge, matrix, graders and a variant's provider.
// Its tasks are loaded by suite-tasks.ts, its newer keys checked by suite-keys.ts.
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { GateFile } from "./gate.ts";
import { type AnyGrader, GRADER_STRING_KEYS, GRADERS_KEY } from "./graders/spec.ts";
import type { SkippedTask } from "./harbor/refusal.ts";
import { JUDGE_STRING_KEYS, JudgeFile } from "./judge/config.ts";
import { MATRIX_STRING_KEYS, MatrixFile } from "./matrix.ts";
import { type Guidance, GuidanceSource, loadGuidance } from "./skills.ts";
import { richKeys } from "./suite-keys.ts";
import { harborTimeouts, loadSuiteTasks } from "./suite-tasks.ts";
import { DURATION_PATTERN, type Task } from "./task.ts";
import { failure, parseWith, readYaml, resolveWithin } from "./yaml.ts";

/**
 * What a variant may run: the three agent CLIs, `command` (any agent, from a command template),
 * `nop` (does nothing: the task must fail untouched) and `oracle` (the task's reference solution).
 */
export const HARNESSES = ["claude", "codex", "gemini", "command", "nop", "oracle"] as const;
export type HarnessName = (typeof HARNESSES)[number];
/** The agent CLIs among them (pinned in evals/clis, each with its own image). */
export const CLI_HARNESSES = ["claude", "codex", "gemini"] as const;
export type Harness = (typeof CLI_HARNESSES)[number];
/** Whether `h` is one of the agent CLIs (CLI_HARNESSES). */
export const isCliHarness = (h: string): h is Harness => (CLI_HARNESSES as readonly string[]).includes(h);

/** One arm of the comparison. */
export const VariantFile = z
  .object({
    name: z.string().min(1).describe("unique within the suite"),
    harness: z.enum(HARNESSES),
    version: z.string().optional().describe("the harness CLI version (image eval-<harness>:<version>)"),
    model: z.string().optional(),
    provider: z.string().optional().describe("the upstream the model alias routes to; recorded only"),
    settings: z
      .string()
      .optional()
      .describe("a rendered managed-settings file, relative to the suite's directory and inside it"),
    command: z
      .string()
      .min(1)
      .optional()
      .describe(
        "harness command only (and required there): a shell command template with {prompt_file} {workdir} {model} {model_url}",
      ),
    image: z
      .string()
      .min(1)
      .optional()
      .describe(
        "the image the trial's phases run in under Docker (default eval-<harness>, proctor-base for command/nop/oracle)",
      ),
    skills: GuidanceSource.optional().describe(
      "a folder of Agent Skills (each a folder with SKILL.md) installed where the harness reads skills; a path, or {path, ref} for a git revision",
    ),
    instructions: GuidanceSource.optional().describe(
      "the instruction file the harness reads (CLAUDE.md, AGENTS.md, GEMINI.md); a path, or {path, ref} for a git revision",
    ),
  })
  .strict();
export type VariantFile = z.infer<typeof VariantFile>;

/** A suite.yaml file. Existing suites carry no version; a versioned one says 1. */
export const SuiteFile = z
  .object({
    version: z.literal(1).optional(),
    name: z.string().min(1),
    tasks: z.array(z.string().min(1)).min(1).describe("task directory names under the tasks root"),
    control: z.string().optional().describe("the baseline variant's name (default: the first variant)"),
    repeats: z.number().int().min(0).optional().describe("trials per task and variant (0 or absent: 1)"),
    variants: z.array(VariantFile).min(1).optional().describe("required unless the suite has a matrix"),
    seed: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("the default --seed (bootstrap intervals, per-trial seeds); the flag wins"),
    k: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("the k of pass@k and pass^k: 1..repeats (0 or absent: repeats)"),
    gate: GateFile.optional().describe("ship / hold / block thresholds"),
    judge: JudgeFile.optional().describe("the LLM judge the judge graders use"),
    matrix: MatrixFile.optional().describe("harness x model x provider, run with --matrix"),
    graders: GRADERS_KEY.describe("graders applied to every task after its own"),
    reward_threshold: z
      .number()
      .optional()
      .describe("Harbor tasks: a trial passes when its reward is at least this (default 1)"),
    agent_timeout: z
      .string()
      .regex(DURATION_PATTERN, { error: 'expected a duration like "10m", "90s" or "1h30m"' })
      .optional()
      .describe("Harbor tasks: a Go duration replacing each task.toml's [agent] timeout_sec"),
    verifier_timeout: z
      .string()
      .regex(DURATION_PATTERN, { error: 'expected a duration like "10m", "90s" or "1h30m"' })
      .optional()
      .describe("Harbor tasks: a Go duration replacing each task.toml's [verifier] timeout_sec"),
  })
  .strict();
export type SuiteFile = z.infer<typeof SuiteFile>;

/**
 * A loaded variant: `settings` is the symlink-resolved absolute path, or absent; `guidance` what its
 * skills and instructions keys loaded (their every byte, so the suite's digest covers them).
 */
export type Variant = VariantFile & { guidance?: Guidance };

/** A loaded suite with defaults applied and its tasks loaded. */
export interface Suite {
  name: string;
  control: string;
  repeats: number;
  variants: Variant[];
  /** The suite's `seed`, the default of --seed. */
  seed?: number;
  /** The suite's `k` (1..repeats) when written. */
  k?: number;
  gate?: GateFile;
  judge?: JudgeFile;
  /** The matrix as written, its harnesses' settings resolved like a variant's. */
  matrix?: MatrixFile;
  /** The suite's own graders, when it has any (each task's `graders` ends with them). */
  graders?: AnyGrader[];
  /** The task names as written. */
  taskNames: string[];
  /** The loaded tasks, in the suite's order. */
  tasks: Task[];
  /** Harbor tasks of a dataset folder that cannot load or run here, each with its line (absent: none). */
  skipped?: SkippedTask[];
  /** Absolute path of the suite file. */
  path: string;
  /** Absolute directory of the suite file. */
  dir: string;
  /** Absolute tasks root. */
  tasksDir: string;
  /** The suite's reward_threshold: a Harbor task's trial passes at reward >= it (default 1). */
  rewardThreshold?: number;
  /** The suite's agent_timeout and verifier_timeout in ms (Harbor tasks; absent or 0: task.toml's). */
  agentTimeoutMs?: number;
  verifierTimeoutMs?: number;
}

/** The JSON Schema committed as schemas/suite.schema.json. */
export function suiteJsonSchema(): unknown {
  return z.toJSONSchema(SuiteFile);
}

/**
 * Loads the suite at `path` and each of its tasks (from `tasksDir`, default <suite dir>/../tasks).
 * Throws ConfigError, one line naming the file, line:column, the suite and what was expected: invalid
 * YAML, an unknown key, a missing name/tasks/variants, an unknown harness, an empty or duplicate
 * variant name, a control that is no variant, negative repeats, a task name leaving the tasks root,
 * settings outside the suite's directory (symlinks resolved), or any task that does not load.
 */
export function loadSuite(path: string, opts: { tasksDir?: string } = {}): Suite {
  const abs = resolve(path);
  const dir = dirname(abs);
  const src = readYaml(abs, STRING_KEYS, "suite");
  const raw = src.data as Record<string, unknown> | undefined;
  const owner = typeof raw?.name === "string" && raw.name !== "" ? `suite ${raw.name}` : "suite";
  const file = parseWith(src, SuiteFile, owner);
  if (file.variants === undefined && file.matrix === undefined)
    throw failure(src, owner, [], "variants is required");
  const seen = new Set<string>();
  const variants: Variant[] = (file.variants ?? []).map((v, i) => {
    if (seen.has(v.name))
      throw failure(
        src,
        owner,
        ["variants", i, "name"],
        `variants[${i}].name: duplicate variant name "${v.name}"`,
      );
    seen.add(v.name);
    if ((v.harness === "command") !== (v.command !== undefined))
      throw failure(
        src,
        owner,
        ["variants", i, v.command === undefined ? "harness" : "command"],
        v.command === undefined
          ? `variant ${v.name}: harness "command" needs a command template (key "command")`
          : `variant ${v.name}: key "command" is only for harness "command" (harness is "${v.harness}")`,
      );
    // Settings are merged into an agent CLI's own config; no other harness would read them.
    if (v.settings !== undefined && !isCliHarness(v.harness))
      throw failure(
        src,
        owner,
        ["variants", i, "settings"],
        `variant ${v.name}: key "settings" is for the agent CLIs (claude, codex, gemini), not harness "${v.harness}"`,
      );
    if (
      (v.skills !== undefined || v.instructions !== undefined) &&
      (v.harness === "nop" || v.harness === "oracle")
    )
      throw failure(
        src,
        owner,
        ["variants", i, v.skills !== undefined ? "skills" : "instructions"],
        `variant ${v.name}: harness "${v.harness}" reads no skills nor instructions`,
      );
    const guidance = loadVariantGuidance(src, owner, dir, v, i);
    const { settings, ...plain } = v;
    const rest = guidance ? { ...plain, guidance } : plain;
    if (settings === undefined || settings === "") return rest;
    const inside = resolveWithin(dir, settings);
    if (!inside.ok)
      throw failure(
        src,
        owner,
        ["variants", i, "settings"],
        `variant ${v.name}: settings "${settings}": ${inside.why}`,
      );
    return { ...rest, settings: inside.path };
  });
  // A matrix-only suite has no variants until --matrix expands the matrix (which names the control).
  const control = file.control || (variants[0]?.name ?? "");
  if (variants.length > 0 && !seen.has(control)) {
    const names = [...seen].map((n) => JSON.stringify(n)).join(", ");
    throw failure(src, owner, ["control"], `control "${control}" is not a variant (variants: ${names})`);
  }
  const rich = richKeys(src, owner, file, dir, HARNESSES);
  const tasksDir = resolve(opts.tasksDir ?? join(dir, "..", "tasks"));
  const { tasks, skipped } = loadSuiteTasks(src, owner, {
    names: file.tasks,
    tasksDir,
    graders: rich.graders,
    hasJudge: file.judge !== undefined,
  });
  return {
    name: file.name,
    control,
    repeats: file.repeats || 1,
    variants,
    ...rich.keys,
    ...(rich.graders.length > 0 ? { graders: rich.graders } : {}),
    taskNames: file.tasks,
    tasks,
    ...(skipped.length > 0 ? { skipped } : {}),
    path: abs,
    dir,
    tasksDir,
    ...(file.reward_threshold !== undefined ? { rewardThreshold: file.reward_threshold } : {}),
    ...harborTimeouts(src, owner, file),
  };
}

/** A variant's skills and instructions loaded; a bad one is the suite file's error at that key. */
function loadVariantGuidance(
  src: Parameters<typeof failure>[0],
  owner: string,
  dir: string,
  v: VariantFile,
  i: number,
): Guidance | undefined {
  try {
    return loadGuidance(dir, v, `variant ${v.name}`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const key = error.message.includes(": instructions") ? "instructions" : "skills";
    throw failure(src, owner, ["variants", i, key], error.message);
  }
}

const STRING_KEYS: ReadonlySet<string> = new Set([
  "name",
  "tasks",
  "control",
  "variants.name",
  "variants.harness",
  "variants.version",
  "variants.model",
  "variants.settings",
  "variants.provider",
  ...MATRIX_STRING_KEYS,
  ...JUDGE_STRING_KEYS.map((k) => `judge.${k}`),
  ...GRADER_STRING_KEYS.map((k) => `graders.${k}`),
  "variants.command",
  "variants.image",
  "variants.skills",
  "variants.skills.path",
  "variants.skills.ref",
  "variants.instructions",
  "variants.instructions.path",
  "variants.instructions.ref",
  "agent_timeout",
  "verifier_timeout",
]);
