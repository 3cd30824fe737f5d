// The promotion lane's store formats (agent_eval.py, reference §5.2): tasks/<id>/task.json,
// rubrics/<id>.json, the operator's agent config and the committed lock.json. One strict zod schema
// each, `load*` at the boundary; every refusal is a ConfigError (exit 3) naming file, field and
// what was expected. Digests and the lock check live in lock.ts.
import { lstatSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { Assertion } from "../grade/case.ts";
import { parseFile, shown } from "./_load.ts";

/** A task id: lowercase words joined by single hyphens. */
export const TASK_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const CRITERION_ID = /^[a-z0-9-]+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** The command placeholders the driver fills; any other `{...}` in the command is refused. */
export const PLACEHOLDERS = ["{prompt_file}", "{workspace}", "{skills_dir}", "{out_dir}"] as const;

/** GitHub tokens and EVAL_RECORD: never handed to the agent. */
const TOKEN_VARS = [
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "EVAL_RECORD",
];
/** Variables the driver sets itself for each run (EVAL_* are covered by the prefix rule). */
export const MANAGED_VARS = [
  "HOME",
  "PATH",
  "LANG",
  "GH_CONFIG_DIR",
  "GH_PROMPT_DISABLED",
  "TMPDIR",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
] as const;

/** Why `name` may not be listed in pass_env, or null when it may. */
export function passEnvRefusal(name: string): string | null {
  if (TOKEN_VARS.includes(name)) return "a GitHub token or EVAL_RECORD";
  if (name.startsWith("EVAL_") || name.startsWith("IDD_")) return "an EVAL_*/IDD_* variable";
  if ((MANAGED_VARS as readonly string[]).includes(name)) return "a variable the driver sets";
  return null;
}

const nonBlank = z.string().min(1);
const fraction = z.number().min(0).max(1);

/** tasks/<id>/task.json: the only text the agent sees. */
export const PromotionTask = z
  .object({
    version: z.literal(1),
    id: z
      .string()
      .regex(TASK_ID, { error: "a task id like demo-task" })
      .describe("equals the directory name"),
    skill: nonBlank.describe("the skill under test"),
    prompt: nonBlank.describe("what the agent is asked; staged as prompt.txt"),
    min_runs: z.number().int().min(1).default(3).describe("runs per arm a verdict needs"),
  })
  .strict();
export type PromotionTask = z.infer<typeof PromotionTask>;

/** One rubric criterion, scored true/false by blind graders. */
export const Criterion = z
  .object({
    id: z.string().regex(CRITERION_ID, { error: "lowercase letters, digits and -" }),
    text: nonBlank,
  })
  .strict();

/** rubrics/<id>.json: private, never staged. */
export const Rubric = z
  .object({
    version: z.literal(1),
    task_id: z.string().regex(TASK_ID, { error: "a task id like demo-task" }),
    canary: z.string().min(16).describe("a marker that must never appear in skills, staging or a run"),
    criteria: z
      .array(Criterion)
      .min(1)
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((c, i) => {
          if (seen.has(c.id)) ctx.addIssue({ code: "custom", message: "a unique id", path: [i, "id"] });
          seen.add(c.id);
        });
      }),
    checks: z
      .array(Assertion)
      .superRefine((list, ctx) => {
        // A rubric's checks run over a run's out/ on the host: there is no case folder for a golden
        // file and no subject sandbox for a command, so those two tools cannot be graded here.
        list.forEach((c, i) => {
          if (c.tool === "file-equals" || c.tool === "command")
            ctx.addIssue({
              code: "custom",
              message: `a tool a rubric can run (${c.tool} needs a case folder and a sandbox: use file-contains or json-path)`,
              path: [i, "tool"],
            });
        });
      })
      .default([])
      .describe("grade assertions run on each run's out/"),
    pass_threshold: fraction.default(1).describe("fraction of criteria a run must meet"),
    min_pass_rate: fraction.default(0.5).describe("candidate pass rate needed to promote"),
  })
  .strict();
export type Rubric = z.infer<typeof Rubric>;

/** The operator's agent config (anywhere on disk). */
export const AgentConfig = z
  .object({
    command: z
      .array(
        nonBlank.refine(
          (arg) => (arg.match(/\{[^{}]*\}/g) ?? []).every((p) => PLACEHOLDERS.includes(p as never)),
          {
            error: `only the placeholders ${PLACEHOLDERS.join(" ")}`,
          },
        ),
      )
      .min(1)
      .describe("argv; placeholders {prompt_file} {workspace} {skills_dir} {out_dir}"),
    model: nonBlank,
    cli: nonBlank,
    cli_version: nonBlank,
    tools: z.array(nonBlank).min(1),
    pass_env: z
      .array(
        z
          .string()
          .regex(ENV_NAME, { error: "an environment variable name" })
          .superRefine((name, ctx) => {
            const why = passEnvRefusal(name);
            if (why !== null) ctx.addIssue({ code: "custom", message: `a name that is not ${why}` });
          }),
      )
      .default([])
      .describe("variables copied from the caller's environment (absent: none, as the original)"),
    notes: z.string().optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;

/** One locked task's digests. */
export const LockEntry = z
  .object({
    rubric_sha256: z.string().regex(SHA256, { error: "a sha256 hex digest" }),
    task_sha256: z.string().regex(SHA256, { error: "a sha256 hex digest" }),
  })
  .strict();
export type LockEntry = z.infer<typeof LockEntry>;

/** evals/promotion/lock.json: the committed commitment to each task tree and rubric. */
export const Lock = z
  .object({
    tasks: z.record(z.string().regex(TASK_ID, { error: "a task id like demo-task" }), LockEntry),
    version: z.literal(1),
  })
  .strict();
export type Lock = z.infer<typeof Lock>;

/** JSON Schemas committed as schemas/promotion-<name>.schema.json (input shape: defaults optional). */
export function promotionJsonSchemas(): Record<"task" | "rubric" | "agent-config" | "lock", unknown> {
  const io = { io: "input" } as const;
  return {
    task: z.toJSONSchema(PromotionTask, io),
    rubric: z.toJSONSchema(Rubric, io),
    "agent-config": z.toJSONSchema(AgentConfig, io),
    lock: z.toJSONSchema(Lock, io),
  };
}

/** A loaded task with where it lives. */
export type LoadedTask = PromotionTask & { dir: string; path: string };
/** A loaded rubric with its file. */
export type LoadedRubric = Rubric & { path: string };

/** Where a task and its rubric live in a store. */
export function storePaths(store: string, id: string): { taskDir: string; rubric: string } {
  const abs = resolve(store);
  return { taskDir: join(abs, "tasks", id), rubric: join(abs, "rubrics", `${id}.json`) };
}

/** Refuses an id that is not a task id before it is joined into a path. */
export function checkTaskId(id: string): void {
  if (!TASK_ID.test(id))
    throw new ConfigError(`invalid task id ${JSON.stringify(id)}: expected ${TASK_ID.source}`);
}

/** Loads `<store>/tasks/<id>/task.json`; the directory must be real (no symlink) and `id` must match. */
export function loadPromotionTask(store: string, id: string): LoadedTask {
  checkTaskId(id);
  const { taskDir } = storePaths(store, id);
  let real = false;
  try {
    real = lstatSync(taskDir).isDirectory();
  } catch {
    throw new ConfigError(`task not found: ${taskDir}`);
  }
  if (!real) throw new ConfigError(`task directory is not a real directory: ${taskDir}`);
  const path = join(taskDir, "task.json");
  const task = parseFile(path, "task", PromotionTask);
  if (task.id !== id)
    throw new ConfigError(
      `Cannot load task "${path}": expected ${JSON.stringify(id)} at id, got ${shown(task.id)}`,
    );
  return { ...task, dir: taskDir, path };
}

/** Loads `<store>/rubrics/<id>.json`; its task_id must be `id`. */
export function loadRubric(store: string, id: string): LoadedRubric {
  checkTaskId(id);
  const path = storePaths(store, id).rubric;
  const rubric = parseFile(path, "rubric", Rubric);
  if (rubric.task_id !== id)
    throw new ConfigError(
      `Cannot load rubric "${path}": expected ${JSON.stringify(id)} at task_id, got ${shown(rubric.task_id)}`,
    );
  return { ...rubric, path };
}

/** Loads an agent config file. */
export function loadAgentConfig(path: string): AgentConfig {
  return parseFile(resolve(path), "agent config", AgentConfig);
}

/** Loads lock.json. */
export function loadLock(path: string): Lock {
  return parseFile(resolve(path), "lock", Lock);
}
