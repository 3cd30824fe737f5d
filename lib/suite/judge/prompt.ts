// What the rubric judge is shown, as the newest original frames it: a system text (the rubric's
// instructions, the data rule, each criterion to score from 0 to 1, the one JSON shape to answer in)
// and a prompt of titled parts, where everything the agent wrote is fenced as data (lib/judge/fence.ts)
// so a changed file cannot pass itself off as the verdict. What decides the grade comes first: paths
// the task protects, then paths its checks name, then other changes, then .git; the change
// summary says how many paths changed and exactly which were cut or left out. Against position bias
// the criteria, and the changed files within each of those tiers, are listed in an order drawn from
// the suite seed and the trial (task, repeat: the same for every variant, so arms stay paired),
// recorded with the grade.
import { Buffer } from "node:buffer";
import { sha256Bytes } from "../../core/hash.ts";
import { dataRule, GRADER_ROLE, type Part, REPLY_RULE } from "../../judge/fence.ts";
import { Rng, shuffle } from "../../stats/index.ts";
import type { Rubric } from "./config.ts";

/** Where a changed path stands: protected by must_not_change, named by the task's checks, other, .git. */
export type Tier = "protected" | "checked" | "changed" | "git";

/** The tiers in the order the judge is shown them. */
export const TIERS: readonly Tier[] = ["protected", "checked", "changed", "git"];

/**
 * A changed path as the judge sees it. `content` is a text file's text (its first `content` bytes
 * when `truncated`); null when there is no text to show: `kind` says what stands there instead (a
 * deletion, a link and its target, never followed, a binary or special file, a file that changed while
 * it was read). Without `kind`, content null is a deletion.
 */
export interface ChangedFile {
  path: string;
  content: string | null;
  kind?: "text" | "deleted" | "link" | "binary" | "special" | "unread";
  change?: "added" | "modified" | "deleted";
  tier?: Tier;
  /** The file's whole size in bytes (text and binary files). */
  bytes?: number;
  truncated?: boolean;
  /** A link's target (untrusted, shown fenced) or what a special entry is (trusted wording). */
  target?: string;
  special?: string;
}

/** What the judge is told of the whole change beyond the files it is shown. */
export interface ChangeView {
  added: number;
  modified: number;
  deleted: number;
  /** Changed paths not shown at all. */
  omitted: number;
  /** The first of them, in the order they would have been shown (at most OMITTED_LISTED). */
  omittedPaths: string[];
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
export const PROMPT_VERSION = "proctor-3";

/** The generator of a trial's order: SHA-256 of (seed, task, repeat), its first 8 bytes as the seed. */
export function orderRng(t: TrialRef): Rng {
  const digest = sha256Bytes(`judge-order\0${t.seed}\0${t.task}\0${t.repeat}`);
  return new Rng(digest.readBigUInt64BE(0));
}

/** The criteria, and the changed files tier by tier, in the trial's seeded order (inputs unchanged). */
export function shownOrder(
  rubric: Rubric,
  files: readonly ChangedFile[],
  t: TrialRef,
): { criteria: Rubric["criteria"]; files: ChangedFile[]; order: ShownOrder } {
  const rng = orderRng(t);
  const criteria = shuffle(rubric.criteria, rng);
  const shown = TIERS.flatMap((tier) => {
    const these = files.filter((f) => (f.tier ?? "changed") === tier);
    return these.length > 0 ? shuffle(these, rng) : [];
  });
  return {
    criteria,
    files: shown,
    order: { criteria: criteria.map((c) => c.name), files: shown.map((f) => f.path) },
  };
}

const TIER_WORDS: Record<Tier, string | undefined> = {
  protected: "protected: the task forbids changing this path",
  checked: "named by the task's checks",
  changed: undefined,
  git: "under .git",
};

/** The trusted facts in a changed file's title: what happened to it, its tier, what is shown of it. */
function facts(f: ChangedFile): string[] {
  const kind = f.kind ?? (f.content === null ? "deleted" : "text");
  const shown =
    kind === "text" && f.truncated
      ? `truncated: its first ${Buffer.byteLength(f.content ?? "")} of ${f.bytes} bytes shown`
      : kind === "link"
        ? "a symbolic link: its target is shown, never followed"
        : kind === "binary"
          ? `binary, ${f.bytes} bytes: not shown`
          : kind === "special"
            ? `${f.special ?? "a special file"}: not read`
            : kind === "unread"
              ? "not shown: it changed while it was read"
              : undefined;
  return [f.change, f.tier ? TIER_WORDS[f.tier] : undefined, shown].filter(
    (x): x is string => x !== undefined,
  );
}

function fileBody(f: ChangedFile): string {
  const kind = f.kind ?? (f.content === null ? "deleted" : "text");
  if (kind === "link") return `path: ${f.path}\ntarget: ${f.target ?? ""}`;
  if (kind === "deleted") return `path: ${f.path}\n(deleted)`;
  if (kind === "text") return `path: ${f.path}\n\n${f.content ?? ""}`;
  return `path: ${f.path}`;
}

/** The trusted change summary: how many paths changed, and how much of each is shown. */
function summary(files: readonly ChangedFile[], view: ChangeView | undefined): string {
  if (view === undefined) return `${files.length} files changed; each follows as untrusted data.`;
  const total = view.added + view.modified + view.deleted;
  const truncated = files.filter((f) => f.truncated).length;
  const lines = [
    `${total} paths changed: ${view.added} added, ${view.modified} modified, ${view.deleted} deleted.`,
    `Shown below as untrusted data: ${files.length} of them (${truncated} truncated, each says how much is shown); paths the task protects first, then paths its checks name, then other changes, then changes under .git; within each, edits and deletions of the task's files before new files, the largest first.`,
  ];
  if (view.omitted > 0)
    lines.push(
      `Not shown: ${view.omitted} changed paths${view.omittedPaths.length < view.omitted ? `; the first ${view.omittedPaths.length} of them are listed at the end, the other ${view.omitted - view.omittedPaths.length} are not listed` : ", listed at the end"}. Do not assume anything about what you were not shown.`,
    );
  else lines.push("Nothing was left out.");
  return lines.join("\n");
}

/**
 * The parts of one trial's prompt: the task as given and the change summary (trusted, written by the
 * operator and by us), then each changed file and the list of paths not shown (untrusted, written by
 * the agent). Without a view, the summary counts the files given.
 */
export function trialParts(prompt: string, files: readonly ChangedFile[], view?: ChangeView): Part[] {
  const parts: Part[] = [
    { title: "Task given to the coding agent", body: prompt, untrusted: false },
    { title: "Change summary", body: summary(files, view), untrusted: false },
    ...files.map((f, i) => {
      const about = facts(f);
      return {
        title: `Changed file ${i + 1}${about.length > 0 ? ` (${about.join("; ")})` : ""}`,
        body: fileBody(f),
        untrusted: true,
      };
    }),
  ];
  if (view !== undefined && view.omittedPaths.length > 0)
    parts.push({
      title: "Changed paths not shown (one JSON string per line)",
      body: view.omittedPaths.map((p) => JSON.stringify(p)).join("\n"),
      untrusted: true,
    });
  return parts;
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
