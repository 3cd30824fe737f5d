// The betting confidence sequence: it narrows as rounds come in and holds the mean; its running
// intersection never widens; PairedSequence's decisions are the sequence's own (lower bound past 0:
// better; upper bound below 0: worse; lower bound past -margin: non-inferior) and are kept once made;
// bad arguments are one RangeError. The error rates under peeking are null-sim.test.ts's.
import { describe, expect, test } from "bun:test";
import { confidenceSequence, PairedSequence, Rng } from "../../lib/stats/index.ts";

/** Rounds of `tasks` paired differences, the candidate passing at `pv`, the control at `pc`. */
function rounds(n: number, tasks: number, pc: number, pv: number, seed: number): number[][] {
  const rng = new Rng(seed);
  const bit = (p: number) => (rng.next() < p ? 1 : 0);
  return Array.from({ length: n }, () => Array.from({ length: tasks }, () => bit(pv) - bit(pc)));
}

describe("confidenceSequence", () => {
  const data = rounds(30, 10, 0.4, 0.7, 3);
  test("it narrows, never widens, and holds the mean the rounds came from", () => {
    const states = [1, 2, 5, 10, 20, 30].map((k) => confidenceSequence(data.slice(0, k)));
    const widths = states.map((s) => s.hi - s.lo);
    expect({
      narrowing: widths.every((w, i) => i === 0 || w <= widths[i - 1]!),
      holds: states.every((s) => s.lo <= 0.3 && 0.3 <= s.hi),
      inside: states.every((s) => s.lo <= s.mean && s.mean <= s.hi),
      last: { rounds: states.at(-1)!.rounds, n: states.at(-1)!.n, above0: states.at(-1)!.lo > 0 },
    }).toEqual({ narrowing: true, holds: true, inside: true, last: { rounds: 30, n: 300, above0: true } });
  });

  test("PairedSequence decides exactly when the sequence's bounds say so, and keeps its decision", () => {
    const cases = [
      { data: rounds(40, 10, 0.4, 0.7, 4), margin: undefined, want: "better" as const },
      { data: rounds(40, 10, 0.7, 0.4, 4), margin: undefined, want: "worse" as const },
      { data: rounds(40, 10, 0.6, 0.6, 4), margin: 0.1, want: "non-inferior" as const },
    ];
    const got = cases.map(({ data: d, margin }) => {
      const seq = new PairedSequence(margin === undefined ? {} : { margin });
      let at = 0;
      for (const round of d) {
        seq.push(round);
        at++;
        if (seq.decision()) break;
      }
      const decided = seq.decision()!;
      const before = confidenceSequence(d.slice(0, at - 1));
      const now = confidenceSequence(d.slice(0, at));
      const edge = margin === undefined ? 0 : -margin;
      const crossed = (s: { lo: number; hi: number }) => s.lo > edge || s.hi < 0;
      // Later rounds do not undo it.
      for (const round of d.slice(at)) seq.push(round);
      return {
        decision: decided.decision,
        round: decided.round === at,
        before: crossed(before),
        now: crossed(now),
        kept: seq.decision()!.round === at,
      };
    });
    expect(got).toEqual(
      cases.map(({ want }) => ({ decision: want, round: true, before: false, now: true, kept: true })),
    );
  });

  const bad: { name: string; run: () => unknown; message: string }[] = [
    { name: "no rounds", run: () => confidenceSequence([]), message: "no rounds" },
    {
      name: "an empty round",
      run: () => confidenceSequence([[0], []]),
      message: "round 2 has no observations",
    },
    {
      name: "outside the range",
      run: () => confidenceSequence([[0, 2]]),
      message: "round 1 value 1 2 is outside -1..1",
    },
    { name: "alpha", run: () => new PairedSequence({ alpha: 1 }), message: "alpha must be in (0, 1), got 1" },
    { name: "margin", run: () => new PairedSequence({ margin: 0 }), message: "margin must be > 0, got 0" },
  ];
  test.each(bad)("refused: $name", ({ run, message }) => {
    expect(run).toThrow(`Cannot compute a confidence sequence: ${message}`);
  });
});
