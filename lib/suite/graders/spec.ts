// A `graders:` entry of task.yaml or suite.yaml (the rich original's GraderSpec): one strict, flat
// zod schema (each type reads the keys it needs, as the original's flat struct did, so its files load
// unchanged) and checkGraders(), which validates the entries once at load time and turns them into
// the typed graders a trial runs. Running them is graders/index.ts's; this file only reads.
import { statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { z } from "zod";
import { loadRubric } from "../judge/config.ts";
import { failure, resolveWithin, type YamlSource } from "../yaml.ts";
import { globProblem } from "./glob.ts";

/** The grader types beside a task's `check`. */
export const GRADER_TYPES = ["command", "file", "diff", "judge"] as const;

/** One `graders:` entry as written. */
export const GraderSpec = z
  .object({
    type: z.enum(GRADER_TYPES),
    run: z.string().optional().describe("command: shell command run over /work; exit 0 = pass"),
    path: z.string().optional().describe("file: a path relative to /work, inside it"),
    exists: z.boolean().optional().describe("file: whether the file must exist (default true)"),
    contains: z.array(z.string()).optional().describe("file: substrings the file must contain"),
    not_contains: z.array(z.string()).optional().describe("file: substrings the file must not contain"),
    matches: z.string().optional().describe("file: a regular expression the content must match"),
    max_files_changed: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("diff: most files the agent may add, modify or delete (0: no limit)"),
    must_change: z
      .array(z.string())
      .optional()
      .describe("diff: globs of which each must match a changed path"),
    must_not_change: z.array(z.string()).optional().describe("diff: globs no changed path may match"),
    rubric: z
      .string()
      .optional()
      .describe("judge: a rubric file relative to the declaring task's or suite's directory"),
  })
  .strict();
export type GraderSpec = z.infer<typeof GraderSpec>;

/** A validated grader, ready to run. */
export type Grader =
  | { type: "command"; run: string }
  | {
      type: "file";
      path: string;
      exists: boolean;
      contains: string[];
      notContains: string[];
      matches?: string;
    }
  | { type: "diff"; maxFilesChanged: number; mustChange: string[]; mustNotChange: string[] };

/** A judge grader: its rubric's `id@version` and resolved file (loaded and checked when the task loads). */
export type JudgeGrader = { type: "judge"; rubric: string; rubricPath: string };
export type AnyGrader = Grader | JudgeGrader;

/** Where a declaring file's rubric paths resolve: `base` (its directory) must stay inside `root`. */
export interface RubricRoots {
  /** The evals root: the parent of the tasks (or suites) directory. */
  root: string;
  /** The declaring directory. */
  base: string;
}

function outsideRepo(path: string): boolean {
  const parts = path.replaceAll("\\", "/").split("/");
  let depth = 0;
  for (const p of parts) {
    if (p === "..") depth--;
    else if (p !== "." && p !== "") depth++;
    if (depth < 0) return true;
  }
  return false;
}

/**
 * Validates the `graders` of a loaded task or suite file. Throws ConfigError, one line naming the
 * file, line:column and the field: a command without `run`, a file grader whose path is empty,
 * absolute or leaves /work, a `matches` that is no regular expression, a malformed glob, a judge
 * without a rubric or whose rubric is no file under the evals root (symlinks resolved).
 */
export function checkGraders(
  src: YamlSource,
  owner: string,
  specs: readonly GraderSpec[],
  roots: RubricRoots,
): AnyGrader[] {
  return specs.map((g, i) => checkGrader(src, owner, g, i, roots));
}

function checkGrader(
  src: YamlSource,
  owner: string,
  g: GraderSpec,
  i: number,
  roots: RubricRoots,
): AnyGrader {
  const at = (key?: string) => ["graders", i, ...(key ? [key] : [])];
  const bad = (key: string | undefined, what: string) =>
    failure(src, owner, at(key), `graders[${i}]${key ? `.${key}` : ""}: ${what}`);
  switch (g.type) {
    case "command":
      if ((g.run ?? "").trim() === "") throw bad(undefined, 'a command grader needs "run" (a shell command)');
      return { type: "command", run: g.run! };
    case "file": {
      const path = g.path ?? "";
      if (path === "" || isAbsolute(path) || outsideRepo(path))
        throw bad(
          g.path === undefined ? undefined : "path",
          "a file grader needs a relative path inside the repo",
        );
      if (g.matches !== undefined) {
        try {
          new RegExp(g.matches, "u");
        } catch (error) {
          throw bad("matches", `not a regular expression: ${(error as Error).message}`);
        }
      }
      return {
        type: "file",
        path,
        exists: g.exists ?? true,
        contains: g.contains ?? [],
        notContains: g.not_contains ?? [],
        ...(g.matches !== undefined ? { matches: g.matches } : {}),
      };
    }
    case "diff":
      for (const key of ["must_change", "must_not_change"] as const)
        (g[key] ?? []).forEach((glob, j) => {
          const why = globProblem(glob);
          if (why !== null)
            throw failure(
              src,
              owner,
              [...at(key), j],
              `graders[${i}].${key}[${j}]: glob ${JSON.stringify(glob)}: ${why}`,
            );
        });
      return {
        type: "diff",
        maxFilesChanged: g.max_files_changed ?? 0,
        mustChange: g.must_change ?? [],
        mustNotChange: g.must_not_change ?? [],
      };
    case "judge": {
      if ((g.rubric ?? "") === "") throw bad(undefined, 'a judge grader needs "rubric" (a rubric file)');
      const inside = resolveWithin(roots.root, join(relative(roots.root, roots.base), g.rubric!));
      if (!inside.ok || !statSync(inside.path).isFile())
        throw bad(
          "rubric",
          `rubric must be a file under the evals root ${roots.root}: ${inside.ok ? "not a file" : inside.why}`,
        );
      return { type: "judge", rubric: loadRubric(inside.path).ref, rubricPath: inside.path };
    }
  }
}

/** True when a grader compares /work before and after the agent (diff, judge). */
export function needsSnapshot(graders: readonly AnyGrader[]): boolean {
  return graders.some((g) => g.type === "diff" || g.type === "judge");
}

/** The `graders:` key of task.yaml and suite.yaml (optional; every entry must pass). */
export const GRADERS_KEY = z.array(GraderSpec).optional().describe("graders beside check; all must pass");

/** Grader keys whose plain YAML scalars stay strings (`contains: [1.10]` is "1.10"). */
export const GRADER_STRING_KEYS = [
  "run",
  "path",
  "contains",
  "not_contains",
  "matches",
  "must_change",
  "must_not_change",
  "rubric",
] as const;
