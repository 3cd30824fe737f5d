// What the rubric judge is shown, as the newest original frames it: a system text (the rubric's
// instructions, the data rule, each criterion to score from 0 to 1, the one JSON shape to answer in)
// and a prompt of titled parts, where everything the agent wrote is fenced as data (lib/judge/fence.ts:
// between <untrusted-NONCE> tags, a fresh random nonce per call, and any look-alike tag in the content
// defused) so a changed file cannot pass itself off as the verdict. Against position bias the
// criteria and the changed files are listed in an order drawn from the suite seed and the trial
// (task, repeat: the same for every variant, so arms stay paired), recorded with the grade.
import { sha256Bytes } from "../../core/hash.ts";
import { dataRule, GRADER_ROLE, type Part, REPLY_RULE } from "../../judge/fence.ts";
import { Rng, shuffle } from "../../stats/index.ts";
import type { Rubric } from "./config.ts";

/** A changed file as the judge sees it; null content: the agent deleted it. */
export interface ChangedFile {
  path: string;
  content: string | null;
}

/** Which trial a judgement belongs to: the suite seed, the task id and the repeat. */
export interface TrialRef {
  seed: number;
  task: string;
  repeat: number;
}

/** The order the judge was shown, recorded so a rerun shows the same. */
export interface ShownOrder {
  criteria: string[];
  files: string[];
}

/** Bumped whenever the framing changes, so verdicts given under another framing are not reused. */
export const PROMPT_VERSION = "proctor-2";

/** The generator of a trial's order: SHA-256 of (seed, task, repeat), its first 8 bytes as the seed. */
export function orderRng(t: TrialRef): Rng {
  const digest = sha256Bytes(`judge-order\0${t.seed}\0${t.task}\0${t.repeat}`);
  return new Rng(digest.readBigUInt64BE(0));
}

/** The criteria and changed files in the trial's seeded order (the inputs are not changed). */
export function shownOrder(
  rubric: Rubric,
  files: readonly ChangedFile[],
  t: TrialRef,
): { criteria: Rubric["criteria"]; files: ChangedFile[]; order: ShownOrder } {
  const rng = orderRng(t);
  const criteria = shuffle(rubric.criteria, rng);
  const shown = shuffle(files, rng);
  return {
    criteria,
    files: shown,
    order: { criteria: criteria.map((c) => c.name), files: shown.map((f) => f.path) },
  };
}

/** The parts of one trial's prompt, as the newest original lays them out: the task as given and a
 * count (trusted, written by the operator), then each changed file (untrusted, written by the agent). */
export function trialParts(prompt: string, files: readonly ChangedFile[]): Part[] {
  return [
    { title: "Task given to the coding agent", body: prompt, untrusted: false },
    {
      title: "Change summary",
      body: `${files.length} files changed; each follows as untrusted data.`,
      untrusted: false,
    },
    ...files.map((f, i) => ({
      title: `Changed file ${i + 1}`,
      body: f.content === null ? `path: ${f.path}\n(deleted)` : `path: ${f.path}\n\n${f.content}`,
      untrusted: true,
    })),
  ];
}

/** The system text: instructions, the data rule naming this call's fence, the criteria, the reply shape. */
export function systemPrompt(rubric: Rubric, criteria: Rubric["criteria"], nonce: string): string {
  const lines = criteria.map((c) => `- ${c.name}: ${c.description}`);
  const shape = criteria.map((c) => `${JSON.stringify(c.name)}: <0..1>`).join(", ");
  return [
    `${GRADER_ROLE} ${rubric.instructions}`,
    "",
    dataRule(nonce, "the criteria"),
    "",
    "Score each criterion from 0 (fails) to 1 (fully meets):",
    ...lines,
    "",
    REPLY_RULE,
    `{"scores": {${shape}}, "rationale": "<one paragraph>"}`,
  ].join("\n");
}
