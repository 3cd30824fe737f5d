// What `agent-eval suite --until-decided` saves: trials against the fixed design at equal power, by
// simulation (seeded, no agent runs: each trial a draw at its task's pass rate), for a suite of 10
// tasks whose candidate is clearly better (every task 40% -> 70%) or close (50% -> 60%).
//   fixed:      the fewest repeats R at which the exact sign-flip test over tasks says `better` in at
//               least 80% of suites: 2 x 10 x R trials, every time.
//   sequential: the fewest rounds C (the --max-trials budget, 2 x 10 x C) at which the confidence
//               sequence has said `better` in at least 80% of suites, and the trials it uses on average
//               with that budget (it stops at its decision): the saving is 1 - that / the fixed design's.
//   null:       with both arms equal, the trials the sequential run uses with the clear case's budget
//               (it runs to the budget: no difference is ever declared), and how often it says better
//               or worse all the same (at most 5%).
//   gated:      a ship (non-inferiority at the gate's 5-point margin) in the close case: the fixed
//               one-sided test at 2.5% against the sequence watching -5 points.
// BENCH_ONLY=sequential npm run bench, or npx bun tests/bench/sequential.ts (BENCH_SEQ_SIMS: suites
// per estimate, default 1000).
import { PairedSequence, Rng, signFlipTest } from "../../lib/stats/index.ts";
import type { BenchRow } from "./run.ts";

const SIMS = Number(process.env.BENCH_SEQ_SIMS ?? 1000);
const TASKS = 10;
const POWER = 0.8;
const MAX_ROUNDS = 400;

interface Case {
  name: string;
  control: number;
  candidate: number;
}

const CASES: Case[] = [
  { name: "clear (+30 pp)", control: 0.4, candidate: 0.7 },
  { name: "close (+10 pp)", control: 0.5, candidate: 0.6 },
];

/** Share of SIMS suites in which the fixed design with `repeats` says `better` (or, `margin`: non-inferior). */
function fixedPower(c: Case, repeats: number, rng: Rng, margin?: number): number {
  let hits = 0;
  for (let s = 0; s < SIMS; s++) {
    const diffs = Array.from({ length: TASKS }, () => {
      let d = 0;
      for (let r = 0; r < repeats; r++)
        d += (rng.next() < c.candidate ? 1 : 0) - (rng.next() < c.control ? 1 : 0);
      return d / repeats;
    });
    const t =
      margin === undefined
        ? signFlipTest(diffs, { seed: s + 1 })
        : signFlipTest(diffs, { seed: s + 1, alternative: "greater", shift: -margin });
    if (margin === undefined ? t.p <= 0.05 && t.statistic > 0 : t.p <= 0.025) hits++;
  }
  return hits / SIMS;
}

/** The fewest repeats reaching POWER (doubling, then bisection on the simulated power). */
function fixedRepeats(c: Case, rng: Rng, margin?: number): number {
  let hi = 1;
  while (fixedPower(c, hi, rng, margin) < POWER) hi *= 2;
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fixedPower(c, mid, rng, margin) >= POWER) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Each suite's stopping round for the wanted decision (Infinity when never, or stopped otherwise). */
function stoppingRounds(c: Case, rng: Rng, want: string, margin?: number): number[] {
  return Array.from({ length: SIMS }, () => {
    const seq = new PairedSequence(margin === undefined ? {} : { margin });
    for (let r = 0; r < MAX_ROUNDS && !seq.decision(); r++)
      seq.push(
        Array.from(
          { length: TASKS },
          () => (rng.next() < c.candidate ? 1 : 0) - (rng.next() < c.control ? 1 : 0),
        ),
      );
    const d = seq.decision();
    return d && (d.decision === want || (want === "non-inferior" && d.decision === "better"))
      ? d.round
      : d
        ? -d.round // a decision of another kind stops the run too
        : Number.POSITIVE_INFINITY;
  });
}

/** The fewest rounds C with P(wanted decision by C) >= POWER, and the mean rounds run with budget C. */
function sequentialBudget(stops: readonly number[]): { cap: number; meanRounds: number } {
  const wins = stops.filter((s) => s > 0 && Number.isFinite(s)).sort((a, b) => a - b);
  const cap = wins[Math.ceil(POWER * stops.length) - 1] ?? MAX_ROUNDS;
  const used = stops.map((s) => Math.min(Math.abs(s), cap));
  return { cap, meanRounds: used.reduce((a, b) => a + b, 0) / used.length };
}

const trials = (rounds: number) => 2 * TASKS * rounds;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The bench's rows: per case the fixed design's trials, the sequential run's, the saving. */
export async function bench(): Promise<BenchRow[]> {
  const rng = new Rng(2024);
  const rows: BenchRow[] = [];
  const add = (name: string, value: number, unit: string, extra: Partial<BenchRow> = {}) =>
    rows.push({ bench: "sequential", name, value: round2(value), unit, ...extra });
  let clearCap = 0;
  for (const c of CASES) {
    const fixed = trials(fixedRepeats(c, rng));
    const seq = sequentialBudget(stoppingRounds(c, rng, "better"));
    if (c === CASES[0]) clearCap = seq.cap;
    add(`${c.name}: fixed design at 80% power`, fixed, "trials");
    add(`${c.name}: --until-decided budget for 80% power`, trials(seq.cap), "trials");
    add(`${c.name}: --until-decided mean trials used`, trials(seq.meanRounds), "trials", {
      ratio: round2(trials(seq.meanRounds) / fixed),
      baseline: "the fixed design at equal power",
      target: "< 1 (saved: 1 - ratio)",
    });
  }
  // The null: both arms at the clear case's control rate, the clear case's budget.
  const nullCase = { name: "null", control: 0.4, candidate: 0.4 };
  const stops = stoppingRounds(nullCase, rng, "better").map((s) =>
    Number.isFinite(s) ? Math.abs(s) : MAX_ROUNDS,
  );
  const decided = stops.filter((s) => s <= clearCap).length / stops.length;
  add(
    "null (equal arms): mean trials used with the clear case's budget",
    trials(stops.reduce((a, s) => a + Math.min(s, clearCap), 0) / stops.length),
    "trials",
  );
  add("null: suites declared better or worse all the same", 100 * decided, "%", { target: "<= 5%" });
  // A ship in the close case: non-inferiority at the gate's 5-point margin.
  const close = CASES[1]!;
  const fixedShip = trials(fixedRepeats(close, rng, 0.05));
  const seqShip = sequentialBudget(stoppingRounds(close, rng, "non-inferior", 0.05));
  add(`${close.name}, gated: fixed design ships at 80% power`, fixedShip, "trials");
  add(`${close.name}, gated: --until-decided mean trials used`, trials(seqShip.meanRounds), "trials", {
    ratio: round2(trials(seqShip.meanRounds) / fixedShip),
    baseline: "the fixed design at equal power",
    target: "< 1",
  });
  return rows;
}

if (import.meta.main) console.log(await bench());
