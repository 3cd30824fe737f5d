// The file grader: one file of the agent's /work, read with `cat -- path` in a fresh phase. It must
// exist (or, with `exists: false`, must not), contain every `contains` string, none of the
// `not_contains` strings, and match `matches` when given; the first unmet one is the detail.
// A read that could not run (the phase's infrastructure) is the grader's error.
import type { Grade } from "../scorecard/schema.ts";
import type { Exec } from "./exec.ts";
import type { Grader } from "./spec.ts";

type FileGrader = Extract<Grader, { type: "file" }>;

/** Grades the file content `body` (null: the file does not exist) against `g`. */
export function judgeFile(g: FileGrader, body: string | null): { pass: boolean; detail?: string } {
  const exists = body !== null;
  if (exists !== g.exists) return { pass: false, detail: `${g.path} exists=${exists}, want ${g.exists}` };
  if (body === null) return { pass: true };
  for (const s of g.contains)
    if (!body.includes(s)) return { pass: false, detail: `${g.path} does not contain ${JSON.stringify(s)}` };
  for (const s of g.notContains)
    if (body.includes(s)) return { pass: false, detail: `${g.path} contains ${JSON.stringify(s)}` };
  if (g.matches !== undefined && !new RegExp(g.matches, "u").test(body))
    return { pass: false, detail: `${g.path} does not match /${g.matches}/` };
  return { pass: true };
}

/** Reads `g.path` from /work and grades it. */
export async function fileGrade(g: FileGrader, exec: Exec): Promise<Grade> {
  const grader = `file:${g.path}`;
  const r = await exec(["cat", "--", g.path]);
  if (r.infraError || r.timedOut)
    return { grader, pass: false, error: `read ${g.path}: ${r.infraError ?? "timed out"}` };
  const verdict = judgeFile(g, r.exitCode === 0 ? r.stdout : null);
  return { grader, pass: verdict.pass, ...(verdict.detail !== undefined ? { detail: verdict.detail } : {}) };
}
