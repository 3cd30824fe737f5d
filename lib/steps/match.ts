// The deterministic step matcher (the SameTools / SameCalls and validity checks of the shadow
// reading): grades one model answer against a case's expected action and its alternatives. `tools`
// compares the multiset of tool names, `calls` the multiset of (name, canonical arguments); validity
// asks that every call names an offered tool, carries the tool's required arguments and is well
// formed; a premature stop is ending the turn where production kept working. Pure; no I/O.

import type { Answer } from "../wire/index.ts";
import { callProblem, canonicalJson } from "./action.ts";
import type { StepAction, StepCase } from "./case.ts";

/** The matcher's reading of one answer. */
export interface StepGrade {
  /** A valid answer that matches the expected action or an alternative under the case's `match`. */
  pass: boolean;
  sameTools: boolean;
  sameCalls: boolean;
  valid: boolean;
  /** True when production kept working and the answer ended its turn; null when production stopped too. */
  prematureStop: boolean | null;
  /** Why the answer is not valid, one line each (empty when valid). */
  problems: string[];
}

function sameMultiset(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

type Call = { name: string; args: Record<string, unknown> };

/** Same multiset of tool names (order and arguments ignored). */
export function sameTools(a: readonly Call[], b: readonly Call[]): boolean {
  return sameMultiset(
    a.map((c) => c.name),
    b.map((c) => c.name),
  );
}

/** Same multiset of (name, canonical arguments). */
export function sameCalls(a: readonly Call[], b: readonly Call[]): boolean {
  const key = (c: Call) => `${c.name}\u0000${canonicalJson(c.args)}`;
  return sameMultiset(a.map(key), b.map(key));
}

/** The validity problems of an answer against the offered tools (empty = valid), the harvest's rule. */
export function validityProblems(
  answer: Pick<Answer, "calls" | "malformedTurn">,
  tools: StepCase["tools"],
): string[] {
  const problems = answer.calls.flatMap((c) => callProblem(c, tools) ?? []);
  return answer.malformedTurn ? ["the reply says the function call was malformed", ...problems] : problems;
}

/** Grades `answer` against the case: matches under both rules, validity, premature stop and pass. */
export function gradeAnswer(
  c: Pick<StepCase, "expected" | "alternatives" | "match" | "tools">,
  answer: Answer,
): StepGrade {
  const accepted: StepAction[] = [c.expected, ...c.alternatives];
  const tools = accepted.some((a) => sameTools(a.calls, answer.calls));
  const calls = accepted.some((a) => sameCalls(a.calls, answer.calls));
  const problems = validityProblems(answer, c.tools);
  const valid = problems.length === 0;
  const stopped = answer.calls.length === 0;
  return {
    pass: valid && (c.match === "calls" ? calls : tools),
    sameTools: tools,
    sameCalls: calls,
    valid,
    prematureStop: c.expected.calls.length === 0 ? null : stopped,
    problems,
  };
}

/** The grade of a case whose call errored: it fails every reading; premature stop does not apply. */
export function erroredGrade(): StepGrade {
  return { pass: false, sameTools: false, sameCalls: false, valid: false, prematureStop: null, problems: [] };
}
