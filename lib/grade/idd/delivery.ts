// Intentional partial delivery (IDD Spec v1.1 §5.1): a PR body may open with `Refs #N` instead of
// `Closes #N` when it ships part of issue #N on purpose. This module decides whether a `Refs` body
// qualifies; pr.ts turns a refusal into the same P02 error as a missing `Closes #N`.
import { strip } from "../../compat/py/text.ts";
import { dataRows, firstContentLine } from "./markdown.ts";

const REFS_RE = /^Refs #([0-9]+)$/;
const TITLE_ISSUE_RE = /\(#([0-9]+)\)$/;
/** GitHub closing keywords: close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved. */
const CLOSING_RE = /(?<![\p{L}\p{N}_])(close[sd]?|fix(?:e[sd])?|resolve[sd]?):?[ \t]*#([0-9]+)(?![0-9])/giu;

/** Why a `Refs #N` body is or is not a valid partial delivery. */
export type PartialDelivery =
  | { ok: true; issue: string; rows: number; deferred: number }
  | { ok: false; reason: string };

/** True for an AC row that defers its criterion: Status `unverified`, Evidence mentioning "deferred". */
export function isDeferredRow(row: readonly string[]): boolean {
  return (row[1] ?? "").toLowerCase() === "unverified" && (row[2] ?? "").toLowerCase().includes("deferred");
}

/** The body's `Refs #N` issue number (as written), or null when the first line is not `Refs #N`. */
export function refsIssue(body: string): string | null {
  return REFS_RE.exec(firstContentLine(body))?.[1] ?? null;
}

const sameIssue = (a: string, b: string) => BigInt(a) === BigInt(b);

/**
 * Checks a body whose first line is `Refs #N`: the title must name `(#N)`, no closing keyword may
 * name #N anywhere, every open AC row (status other than pass) must be deferred, and at least one
 * row must not be deferred. `acv` is the `## Acceptance Criteria Verification` section, if any.
 */
export function checkPartialDelivery(
  body: string,
  title: string | undefined,
  acv: string | undefined,
): PartialDelivery {
  const issue = refsIssue(body);
  if (issue === null) return { ok: false, reason: "the body's first line is not 'Refs #N'" };
  const named = title === undefined ? undefined : TITLE_ISSUE_RE.exec(strip(title))?.[1];
  if (named === undefined) return { ok: false, reason: `no --title naming (#${issue}) to confirm the issue` };
  if (!sameIssue(named, issue)) return { ok: false, reason: `the title names (#${named}), not #${issue}` };
  for (const m of body.matchAll(CLOSING_RE)) {
    if (sameIssue(m[2]!, issue)) return { ok: false, reason: `closing keyword '${m[0]}' names #${issue}` };
  }
  const rows = acv === undefined ? [] : dataRows(acv);
  if (rows.length === 0)
    return { ok: false, reason: "no Acceptance Criteria Verification rows declare what is deferred" };
  const open = rows.filter((r) => (r[1] ?? "").toLowerCase() !== "pass" && !isDeferredRow(r));
  if (open.length) {
    return {
      ok: false,
      reason: `${open.length} open criteri${open.length === 1 ? "on is" : "a are"} not a deferred row (Status unverified, Evidence "deferred …")`,
    };
  }
  const deferred = rows.filter(isDeferredRow).length;
  if (deferred === rows.length)
    return { ok: false, reason: "every criterion is deferred — nothing is delivered" };
  return { ok: true, issue, rows: rows.length, deferred };
}
