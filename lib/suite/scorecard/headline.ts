// The one decision a scorecard leads with, the same words in its Markdown, HTML, JSON and terminal
// table: the release gate's verdict when the run was gated, else the comparison verdict (with several
// candidates the most cautious: worse, insufficient, no_significant_difference, better), else none.
// Where the gate and the comparison's verdict differ it says in one sentence why both stand: the gate
// tests non-inferiority within a margin (and weighs tasks, limits and evidence), the verdict tests
// whether the pass rate differs at all. Pure: a function of the scorecard.
import { goFixed } from "../../compat/go.ts";
import { pp } from "../../report/format.ts";
import type { Comparison, Headline, Scorecard } from "./schema.ts";
import { pText } from "./verdict.ts";

const CAUTION: Comparison["verdict"][] = ["worse", "insufficient", "no_significant_difference", "better"];

/** What the test behind a verdict said, in a few words. */
function evidenceWords(c: Comparison): string {
  const t = c.test;
  const delta = `${pp(c.delta)} over ${c.tasks} tasks`;
  if (t?.method === "sign-flip" && t.p !== undefined) return `${delta}, exact sign-flip p = ${pText(t.p)}`;
  if (t?.method === "confidence-sequence")
    return `${delta}, confidence sequence ${pp(t.lo ?? -1)} to ${pp(t.hi ?? 1)} after ${t.rounds ?? 0} rounds`;
  return delta;
}

/** The one sentence that reconciles a gate verdict with the comparison's, or "" when they agree. */
export function reconcile(gate: string, c: Comparison, margin: number | undefined): string {
  const v = c.verdict;
  if ((gate === "ship" && v === "better") || (gate === "block" && v === "worse")) return "";
  if (gate === "hold" && v === "insufficient") return "";
  const m = margin === undefined ? "the margin" : `the ${goFixed(100 * margin, 1)} pp margin`;
  if (gate === "ship")
    return ` Why both: the gate tests non-inferiority and ships (a drop larger than ${m} is ruled out), while the verdict tests for any difference and ${v === "no_significant_difference" ? "finds none significant" : `says ${v}`}.`;
  if (gate === "hold")
    return ` Why both: the verdict on the pass rate is ${v}, but the gate needs non-inferiority within ${m} and weighs single tasks, limits and evidence too, and holds.`;
  return ` Why both: the verdict on the mean pass rate is ${v}, but the gate also blocks on single regressed tasks, limits and evidence.`;
}

/** The scorecard's headline: its decision, where it comes from, and the line every output prints. */
export function headlineOf(sc: Scorecard): Headline {
  const comparisons = sc.comparisons ?? [];
  if (sc.gate) {
    const verdict = sc.gate.verdict;
    const worst = comparisons.find((c) => c.gate?.verdict === verdict) ?? comparisons[0];
    const margin = (sc.thresholds as { maxPassDrop?: number } | undefined)?.maxPassDrop;
    const why = worst ? `${worst.variant} vs ${worst.control}: ${(worst.gate?.reasons ?? [])[0] ?? ""}` : "";
    const others = comparisons
      .filter((c) => c !== worst && c.gate)
      .map((c) => `${c.variant} ${c.gate!.verdict}`);
    const text = `Decision: ${verdict.toUpperCase()} (release gate) — ${why}${others.length ? ` (also: ${others.join(", ")})` : ""}.${worst ? reconcile(verdict, worst, margin) : ""}`;
    return { decision: verdict, source: "gate", text };
  }
  if (comparisons.length === 0)
    return { decision: "none", source: "none", text: "Decision: none — one variant, nothing compared." };
  const ranked = [...comparisons].sort((a, b) => CAUTION.indexOf(a.verdict) - CAUTION.indexOf(b.verdict));
  const c = ranked[0]!;
  const why = c.reason ?? evidenceWords(c);
  const others = ranked.slice(1).map((o) => `${o.variant} ${o.verdict}`);
  return {
    decision: c.verdict,
    source: "comparison",
    text: `Decision: ${c.verdict} (${c.variant} vs ${c.control}) — ${why}${others.length ? ` (also: ${others.join(", ")})` : ""}.`,
  };
}

/** The scorecard with its headline first (recomputed: a gate applied later changes it). */
export function withHeadline<T extends Scorecard>(sc: T): T {
  const { headline: _old, ...rest } = sc;
  return { headline: headlineOf(sc), ...rest } as unknown as T;
}
