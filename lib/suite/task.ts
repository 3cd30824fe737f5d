// The task.yaml format of the suite lane (evals/tasks/<name>/task.yaml, the original halo eval's
// format): one strict zod schema for the file, loadTask() at the boundary. A task names a
// repository (a directory inside the task, or an https:// / git@ URL), a prompt, a check whose exit
// code alone decides the pass, and limits; the newer original's `graders` add checks beside (or,
// when given, instead of) `check`. Files written for the original load unchanged.
import { statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { type AnyGrader, checkGraders, GRADER_STRING_KEYS, GRADERS_KEY } from "./graders/spec.ts";
import { failure, parseWith, readYaml, resolveWithin, shown } from "./yaml.ts";

/** What a Go time.ParseDuration accepts, without a sign: "10m", "90s", "1h30m", "1.5h", "0". */
export const DURATION_PATTERN = /^(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const DURATION_EXPECTED = 'expected a duration like "10m", "90s" or "1h30m"';
/** The timeout of a task that sets none (also each setup step's and the check's). */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1e3,
  m: 6e4,
  h: 36e5,
};
const MAX_DURATION_MS = 9_223_372_036_854.775; // Go's time.Duration limit: 2^63-1 ns

/** Milliseconds in a Go-style duration string, or null when it is not one (or overflows). */
export function parseDuration(text: string): number | null {
  if (!DURATION_PATTERN.test(text)) return null;
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)([a-zµμ]+)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms > MAX_DURATION_MS ? null : ms;
}

const nonBlank = z.string().min(1);

/** A task.yaml file. Existing tasks carry no version; a versioned one says 1. */
export const TaskFile = z
  .object({
    version: z.literal(1).optional(),
    id: nonBlank.describe("the task's name in scorecards"),
    repo: nonBlank.describe(
      "a directory relative to the task directory, an https:// URL or a git@host:path URL",
    ),
    setup: z
      .array(z.string())
      .optional()
      .describe("shell commands run before the agent, each with the timeout"),
    prompt: nonBlank.describe("what the agent is asked"),
    check: nonBlank
      .optional()
      .describe(
        "shell command run after the agent; exit 0 = pass, nothing else is read (required without graders)",
      ),
    timeout: z
      .string()
      .regex(DURATION_PATTERN, { error: DURATION_EXPECTED })
      .optional()
      .describe("Go duration for the agent, each setup step and the check (default 10m)"),
    budget_usd: z.number().min(0).optional().describe("spending cap passed to the agent CLI"),
    max_turns: z.number().int().min(0).optional().describe("turn cap passed to the agent CLI"),
    tags: z.array(z.string()).optional(),
    graders: GRADERS_KEY,
    solution: nonBlank
      .optional()
      .describe(
        "the reference solution: a script inside the task directory, run by the oracle harness with /work as cwd; never shown to other agents",
      ),
  })
  .strict();
export type TaskFile = z.infer<typeof TaskFile>;

/** A loaded task: the file's fields with defaults applied, plus where it lives. */
export type Task = Omit<TaskFile, "setup" | "tags" | "timeout" | "solution" | "graders"> & {
  setup: string[];
  tags: string[];
  /** The timeout as written, if any. */
  timeout?: string;
  /** Effective timeout in milliseconds (default 10m). */
  timeoutMs: number;
  /** Absolute path of task.yaml. */
  path: string;
  /** Absolute task directory. */
  dir: string;
  /** A local repo's symlink-resolved directory (inside `dir`); null for a remote URL. */
  repoDir: string | null;
  /** The task's graders, then its suite's (absent: none); all must pass beside the check. */
  graders?: AnyGrader[];
  /** The reference solution script's absolute, symlink-resolved host path (task.yaml `solution`, or a Harbor task's solution/solve.sh). */
  solution?: string;
};

/** The JSON Schema committed as schemas/task.schema.json. */
export function taskJsonSchema(): unknown {
  return z.toJSONSchema(TaskFile);
}

/** True for a git URL (cloned), false for a directory relative to the task. */
export function isRemoteRepo(repo: string): boolean {
  return repo.includes("://") || repo.startsWith("git@");
}

/** Why `repo` is refused on syntax alone (the original's rules), or null when acceptable. */
export function checkRepo(repo: string): string | null {
  if (repo.startsWith("-")) return "must not start with '-'";
  if (repo.startsWith("https://") || repo.startsWith("git@")) return null;
  if (repo.includes("://") || repo.includes("::")) return "only https:// and git@ URLs are allowed";
  if (isAbsolute(repo) || repo.startsWith("~")) return "absolute paths are not allowed";
  return null;
}

/**
 * Loads `<dir>/task.yaml`. Throws ConfigError, one line naming the file, line:column, the task and
 * what was expected: unreadable or invalid YAML, an unknown key, a missing or blank required field,
 * a bad timeout, a negative budget or turn count, or a repo that is neither a https/git@ URL nor a
 * directory inside the task directory (symlinks resolved).
 */
export function loadTask(dir: string): Task {
  const abs = resolve(dir);
  const src = readYaml(join(abs, "task.yaml"), STRING_KEYS, "task");
  const raw = src.data as Record<string, unknown> | undefined;
  const owner = typeof raw?.id === "string" && raw.id !== "" ? `task ${raw.id}` : "task";
  const file = parseWith(src, TaskFile, owner);
  if (file.prompt.trim() === "") throw failure(src, owner, ["prompt"], "prompt is required");
  // A task with graders may leave the check out (the newer original's fix-add-graded does).
  if ((file.check ?? "").trim() === "" && (file.graders ?? []).length === 0)
    throw failure(src, owner, ["check"], "check is required");
  // Rubric paths are relative to the task's directory and stay under the evals root (tasks/..).
  const graders = checkGraders(src, owner, file.graders ?? [], { root: dirname(dirname(abs)), base: abs });
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (file.timeout !== undefined) {
    const ms = parseDuration(file.timeout);
    if (ms === null)
      throw failure(src, owner, ["timeout"], `timeout: duration out of range: ${shown(file.timeout)}`);
    if (ms > 0) timeoutMs = ms;
  }
  const bad = checkRepo(file.repo);
  if (bad !== null) throw failure(src, owner, ["repo"], `repo ${JSON.stringify(file.repo)}: ${bad}`);
  let repoDir: string | null = null;
  if (!isRemoteRepo(file.repo)) {
    const inside = resolveWithin(abs, file.repo);
    if (!inside.ok) throw failure(src, owner, ["repo"], `repo ${JSON.stringify(file.repo)}: ${inside.why}`);
    if (!statSync(inside.path).isDirectory())
      throw failure(src, owner, ["repo"], `repo ${JSON.stringify(file.repo)}: not a directory`);
    repoDir = inside.path;
  }
  let solution: string | undefined;
  if (file.solution !== undefined) {
    const inside = resolveWithin(abs, file.solution);
    const at = ["solution"];
    if (!inside.ok) throw failure(src, owner, at, `solution ${JSON.stringify(file.solution)}: ${inside.why}`);
    if (!statSync(inside.path).isFile())
      throw failure(src, owner, at, `solution ${JSON.stringify(file.solution)}: not a file`);
    solution = inside.path;
  }
  const { setup, tags, solution: _written, graders: _specs, ...rest } = file;
  return {
    ...rest,
    setup: setup ?? [],
    tags: tags ?? [],
    timeoutMs,
    path: src.path,
    dir: abs,
    repoDir,
    ...(solution !== undefined ? { solution } : {}),
    ...(graders.length > 0 ? { graders } : {}),
  };
}

const STRING_KEYS: ReadonlySet<string> = new Set([
  "id",
  "repo",
  "setup",
  "prompt",
  "check",
  "timeout",
  "tags",
  "solution",
  ...GRADER_STRING_KEYS.map((k) => `graders.${k}`),
]);
