// An anytime-valid confidence sequence for a mean difference observed in rounds, by betting
// (Waudby-Smith and Ramdas 2024, JRSS-B 86(1), "Estimating means of bounded random variables by
// betting": the hedged capital of their Theorem 3 with the predictable plug-in bets of eq. (26)).
// A round is a batch of independent observations, one per unit (a task's variant - control pass),
// in [lo, hi]; the target is the mean over units of their expectations. For a candidate mean m the
// gambler's capital K+(m) multiplies (1 + l (x - m)) over every observation (x mapped onto [0, 1]),
// one bet l >= 0 per round chosen from earlier rounds alone; K-(m) bets the other way. Under the
// null the units' expectations average m, and by the AM-GM inequality a round's expected factor is
// at most (1 + l (mean - m))^units = 1: each capital is a non-negative supermartingale across rounds,
// so by Ville's inequality it ever reaches 2/alpha with probability at most alpha/2, however often
// one looks. The sequence is {m : K+(m) and K-(m) have stayed below 2/alpha}: two one-sided
// sequences at alpha/2 each, intersected over time, an interval because K+ falls and K- rises in m
// (the bet is the same for every m until the cap c/m keeps each factor above 1 - c). Bets: the
// plug-in l_t = sqrt(2 log(2/alpha) / (v t log(1 + t))), t the first observation of the round, v the
// running variance with the prior's 1/4; c = 1/2. Pure: the same rounds, the same sequence.
import { allFinite, fail, finite, probability } from "./_check.ts";

/** The range of one observation (default -1..1: a difference of two passes), alpha (0.05), cap c (0.5). */
export interface SequenceOptions {
  lo?: number;
  hi?: number;
  alpha?: number;
  cap?: number;
}

/** After the rounds: how many, the observations, their mean, and the sequence's bounds. */
export interface SequenceState {
  rounds: number;
  n: number;
  mean: number;
  lo: number;
  hi: number;
}

/** What a paired comparison decides: better or worse once 0 is excluded, non-inferior once -margin is. */
export type SequenceDecision = "better" | "worse" | "non-inferior";

const WHAT = "compute a confidence sequence";
/** The grid the bounds are read on (steps of 1/GRID of the range), refined by bisection. */
const GRID = 400;

interface Settings {
  lo: number;
  width: number;
  logBar: number;
  logTerm: number;
  cap: number;
}

function settings(opts: SequenceOptions): Settings {
  const lo = finite(WHAT, "lo", opts.lo ?? -1);
  const hi = finite(WHAT, "hi", opts.hi ?? 1);
  if (!(hi > lo)) fail(WHAT, `hi must exceed lo, got ${lo}..${hi}`);
  const alpha = probability(WHAT, "alpha", opts.alpha ?? 0.05, true);
  const cap = probability(WHAT, "cap", opts.cap ?? 0.5, true);
  return { lo, width: hi - lo, logBar: Math.log(2 / alpha), logTerm: 2 * Math.log(2 / alpha), cap };
}

function unit(s: Settings, value: number, where: string): number {
  const x = (value - s.lo) / s.width;
  if (!(x >= -1e-12 && x <= 1 + 1e-12)) fail(WHAT, `${where} ${value} is outside ${s.lo}..${s.lo + s.width}`);
  return Math.min(1, Math.max(0, x));
}

/** The running statistics behind the bets: observations, their sum, and the variance term. */
class Bets {
  n = 0;
  sum = 0;
  squares = 0.25; // the prior's variance term: v_0 = 1/4

  /** The uncapped bet for a round whose first observation is number n + 1. */
  next(logTerm: number): number {
    const t = this.n + 1;
    const variance = this.squares / t;
    return Math.sqrt(logTerm / (variance * t * Math.log(1 + t)));
  }

  add(x: number): void {
    this.n++;
    this.sum += x;
    const mu = (0.5 + this.sum) / (this.n + 1);
    this.squares += (x - mu) ** 2;
  }
}

/** One round's log factors of K+(m) and K-(m) at m in [0, 1] (observations on [0, 1]). */
function roundLog(xs: readonly number[], bet: number, m: number, cap: number): { up: number; down: number } {
  const up = Math.min(bet, m > 0 ? cap / m : Number.POSITIVE_INFINITY);
  const down = Math.min(bet, m < 1 ? cap / (1 - m) : Number.POSITIVE_INFINITY);
  let a = 0;
  let b = 0;
  for (const x of xs) {
    a += Math.log1p(up * (x - m));
    b += Math.log1p(-down * (x - m));
  }
  return { up: a, down: b };
}

function checkRound(s: Settings, round: readonly number[], r: number): number[] {
  allFinite(WHAT, round);
  if (round.length === 0) fail(WHAT, `round ${r + 1} has no observations`);
  return round.map((v, i) => unit(s, v, `round ${r + 1} value ${i}`));
}

/**
 * The sequence after the last of `rounds`: the running intersection of its intervals, valid at every
 * round at once (so at whatever round a run stopped). Bounds to 1e-6 of the range.
 */
export function confidenceSequence(
  rounds: readonly (readonly number[])[],
  opts: SequenceOptions = {},
): SequenceState {
  const s = settings(opts);
  if (rounds.length === 0) fail(WHAT, "no rounds");
  const xs = rounds.map((r, i) => checkRound(s, r, i));
  const bets: number[] = [];
  const stats = new Bets();
  for (const round of xs) {
    bets.push(stats.next(s.logTerm));
    for (const x of round) stats.add(x);
  }
  // The highest log capital reached at m over the rounds: the running intersection in one pass.
  const peak = (m: number) => {
    let up = 0;
    let down = 0;
    let maxUp = 0;
    let maxDown = 0;
    xs.forEach((round, r) => {
      const f = roundLog(round, bets[r]!, m, s.cap);
      up += f.up;
      down += f.down;
      maxUp = Math.max(maxUp, up);
      maxDown = Math.max(maxDown, down);
    });
    return { up: maxUp, down: maxDown };
  };
  const lower = edge((m) => peak(m).up >= s.logBar, true);
  const upper = edge((m) => peak(m).down >= s.logBar, false);
  return {
    rounds: xs.length,
    n: stats.n,
    mean: s.lo + s.width * (stats.sum / stats.n),
    lo: s.lo + s.width * Math.min(lower, upper),
    hi: s.lo + s.width * Math.max(lower, upper),
  };
}

/**
 * Where the rejected region ends on [0, 1]: with `fromBelow`, rejected(m) holds from 0 up to the
 * edge (0 when not even at 0); else it holds from the edge up to 1 (1 when not at 1). A grid scan
 * finds the crossing, bisection refines it.
 */
function edge(rejected: (m: number) => boolean, fromBelow: boolean): number {
  if (!rejected(fromBelow ? 0 : 1)) return fromBelow ? 0 : 1;
  let a = 0;
  let b = 1;
  for (let i = 1; i <= GRID; i++) {
    const m = fromBelow ? i / GRID : 1 - i / GRID;
    if (rejected(m)) continue;
    a = fromBelow ? (i - 1) / GRID : m;
    b = fromBelow ? m : 1 - (i - 1) / GRID;
    break;
  }
  if (a === 0 && b === 1) return fromBelow ? 1 : 0;
  while (b - a > 1e-6) {
    const mid = (a + b) / 2;
    if (rejected(mid) === fromBelow) a = mid;
    else b = mid;
  }
  return fromBelow ? a : b;
}

/**
 * The sequence of a paired comparison, a round at a time (O(observations) per round): it watches
 * m = 0 (better, worse) and, with a margin, m = -margin (non-inferior), and keeps its first decision.
 * Its decisions are exactly the sequence's: better when its lower bound passed 0, worse when its
 * upper bound fell below 0, non-inferior when its lower bound passed -margin.
 */
export class PairedSequence {
  readonly #s: Settings;
  readonly #points: number[];
  readonly #logK: { up: number; down: number }[];
  readonly #bets = new Bets();
  #rounds = 0;
  #decided: { decision: SequenceDecision; round: number } | undefined;

  /** Watches 0 and, with a margin (> 0), -margin, for observations on [lo, hi] (default -1..1). */
  constructor(opts: SequenceOptions & { margin?: number } = {}) {
    this.#s = settings(opts);
    const points = [0];
    if (opts.margin !== undefined) {
      const margin = finite(WHAT, "margin", opts.margin);
      if (margin <= 0) fail(WHAT, `margin must be > 0, got ${margin}`);
      points.push(-margin);
    }
    this.#points = points.map((p) => unit(this.#s, p, "point"));
    this.#logK = points.map(() => ({ up: 0, down: 0 }));
  }

  /** Rounds added so far. */
  get rounds(): number {
    return this.#rounds;
  }

  /** Adds one round's observations (one per unit). */
  push(round: readonly number[]): void {
    const xs = checkRound(this.#s, round, this.#rounds);
    const bet = this.#bets.next(this.#s.logTerm);
    this.#points.forEach((m, j) => {
      const f = roundLog(xs, bet, m, this.#s.cap);
      this.#logK[j]!.up += f.up;
      this.#logK[j]!.down += f.down;
    });
    for (const x of xs) this.#bets.add(x);
    this.#rounds++;
    if (this.#decided === undefined) {
      const now = this.#now();
      if (now !== undefined) this.#decided = { decision: now, round: this.#rounds };
    }
  }

  /** The first decision reached and the round it came at (kept once reached), else undefined. */
  decision(): { decision: SequenceDecision; round: number } | undefined {
    return this.#decided;
  }

  #now(): SequenceDecision | undefined {
    const bar = this.#s.logBar;
    const zero = this.#logK[0]!;
    if (zero.up >= bar) return "better";
    if (zero.down >= bar) return "worse";
    const margin = this.#logK[1];
    return margin !== undefined && margin.up >= bar ? "non-inferior" : undefined;
  }
}
