// An anytime-valid confidence sequence for a mean difference observed in rounds, by betting
// (Waudby-Smith and Ramdas 2024, JRSS-B 86(1), "Estimating means of bounded random variables by
// betting"). A round is a batch of independent observations, one per unit (a task's variant -
// control pass), in [lo, hi]; the target is the mean over units of their expectations. For a
// candidate mean m a gambler's capital K+(m) multiplies (1 + l (x - m)) over every observation (x
// mapped onto [0, 1]), with bets l >= 0 fixed for a round and chosen from earlier rounds alone; K-(m)
// bets the other way. Under the null the units' expectations average m, and by the AM-GM inequality a
// round's expected factor is at most (1 + l (mean - m))^units = 1: each capital is a non-negative
// supermartingale across rounds, so by Ville's inequality it ever reaches 2/alpha with probability at
// most alpha/2, however often one looks. Two gamblers share each side, half the capital each (an
// average of supermartingales is one): the predictable plug-in bet of their eq. (26), which keeps
// the sequence tight at every time and wins big effects fast, and their aGRAPA bet (approximate
// growth-rate adaptive, (mean - m) / (variance + (mean - m)^2)), which wins small effects sooner;
// both capped at c/m (c/(1 - m) below) with c = 1/2, so no factor falls under 1/2. The sequence is
// {m : neither side's capital has reached 2/alpha}, its running intersection over time. Its bounds
// are read on a grid of 100 steps, refined by bisection; a decision (better once the lower bound
// passes 0, worse once the upper bound falls below 0, non-inferior once the lower bound passes
// -margin) is exactly what those bounds say. Pure: the same rounds, the same sequence.
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
const GRID = 100;

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

/** The running statistics behind the bets (the prior's 1/2 and 1/4 as one observation). */
interface Moments {
  n: number;
  mean: number;
  variance: number;
  /** The plug-in bet before any cap, for a round whose first observation is number n + 1. */
  plugIn: number;
}

/** The moments before each round (what that round's bets are chosen from). */
function momentsBefore(rounds: readonly (readonly number[])[], logTerm: number): Moments[] {
  const out: Moments[] = [];
  let n = 0;
  let sum = 0;
  let squares = 0.25;
  for (const round of rounds) {
    const t = n + 1;
    out.push({
      n,
      mean: (0.5 + sum) / (n + 1),
      variance: squares / (n + 1),
      plugIn: Math.sqrt(logTerm / ((squares / t) * t * Math.log(1 + t))),
    });
    for (const x of round) {
      n++;
      sum += x;
      squares += (x - (0.5 + sum) / (n + 1)) ** 2;
    }
  }
  return out;
}

/** One round's log factors at m: each side's two gamblers (plug-in, aGRAPA). */
function roundLog(xs: readonly number[], mo: Moments, m: number, cap: number) {
  const capUp = m > 0 ? cap / m : Number.POSITIVE_INFINITY;
  const capDown = m < 1 ? cap / (1 - m) : Number.POSITIVE_INFINITY;
  const gap = mo.mean - m;
  const grapa = gap / (mo.variance + gap * gap);
  const bets = {
    upP: Math.min(mo.plugIn, capUp),
    upG: Math.min(Math.max(grapa, 0), capUp),
    downP: Math.min(mo.plugIn, capDown),
    downG: Math.min(Math.max(-grapa, 0), capDown),
  };
  let upP = 0;
  let upG = 0;
  let downP = 0;
  let downG = 0;
  for (const x of xs) {
    upP += Math.log1p(bets.upP * (x - m));
    upG += Math.log1p(bets.upG * (x - m));
    downP += Math.log1p(-bets.downP * (x - m));
    downG += Math.log1p(-bets.downG * (x - m));
  }
  return { upP, upG, downP, downG };
}

/** log((e^a + e^b) / 2) without overflow. */
function logMean(a: number, b: number): number {
  const m = Math.max(a, b);
  return m + Math.log((Math.exp(a - m) + Math.exp(b - m)) / 2);
}

/** The highest log capital each side reached at m over the rounds (the running intersection). */
function peak(xs: readonly (readonly number[])[], moments: readonly Moments[], m: number, cap: number) {
  const k = { upP: 0, upG: 0, downP: 0, downG: 0 };
  let up = 0;
  let down = 0;
  xs.forEach((round, r) => {
    const f = roundLog(round, moments[r]!, m, cap);
    k.upP += f.upP;
    k.upG += f.upG;
    k.downP += f.downP;
    k.downG += f.downG;
    up = Math.max(up, logMean(k.upP, k.upG));
    down = Math.max(down, logMean(k.downP, k.downG));
  });
  return { up, down };
}

function checkRound(s: Settings, round: readonly number[], r: number): number[] {
  allFinite(WHAT, round);
  if (round.length === 0) fail(WHAT, `round ${r + 1} has no observations`);
  return round.map((v, i) => unit(s, v, `round ${r + 1} value ${i}`));
}

/** The bounds (on [0, 1]) of the rounds' sequence: below lower every m is excluded, above upper too. */
function bounds(s: Settings, xs: readonly (readonly number[])[]): { lower: number; upper: number } {
  const moments = momentsBefore(xs, s.logTerm);
  return {
    lower: edge((m) => peak(xs, moments, m, s.cap).up >= s.logBar, true),
    upper: edge((m) => peak(xs, moments, m, s.cap).down >= s.logBar, false),
  };
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
  const { lower, upper } = bounds(s, xs);
  const all = xs.flat();
  return {
    rounds: xs.length,
    n: all.length,
    mean: s.lo + s.width * (all.reduce((a, b) => a + b, 0) / all.length),
    lo: s.lo + s.width * Math.min(lower, upper),
    hi: s.lo + s.width * Math.max(lower, upper),
  };
}

/**
 * Where the excluded region ends on [0, 1]: with `fromBelow`, excluded(m) holds from 0 up to the
 * edge (0 when not even at 0); else from the edge up to 1 (1 when not at 1). The grid finds the first
 * m still in the sequence, bisection the crossing just before it.
 */
function edge(excluded: (m: number) => boolean, fromBelow: boolean): number {
  const at = (i: number) => (fromBelow ? i / GRID : 1 - i / GRID);
  if (!excluded(at(0))) return at(0);
  let i = 1;
  while (i <= GRID && excluded(at(i))) i++;
  if (i > GRID) return at(GRID);
  let a = at(i - 1); // excluded
  let b = at(i); // in the sequence
  while (Math.abs(b - a) > 1e-6) {
    const mid = (a + b) / 2;
    if (excluded(mid)) a = mid;
    else b = mid;
  }
  return a;
}

/**
 * The sequence of a paired comparison, a round at a time: it watches m = 0 (better, worse) and, with
 * a margin, m = -margin (non-inferior) in O(observations) a round, and when a side's capital there
 * reaches 2/alpha confirms with the whole sequence's bound, so that its decisions are exactly what
 * confidenceSequence's bounds say; it keeps its first decision.
 */
export class PairedSequence {
  readonly #s: Settings;
  readonly #points: {
    m: number;
    up: number;
    down: number;
    k: { upP: number; upG: number; downP: number; downG: number };
  }[];
  readonly #rounds: number[][] = [];
  #moments: Moments = { n: 0, mean: 0.5, variance: 0.25, plugIn: 0 };
  #sum = 0;
  #squares = 0.25;
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
    this.#points = points.map((p) => ({
      m: unit(this.#s, p, "point"),
      up: 0,
      down: 0,
      k: { upP: 0, upG: 0, downP: 0, downG: 0 },
    }));
  }

  /** Rounds added so far. */
  get rounds(): number {
    return this.#rounds.length;
  }

  /** Adds one round's observations (one per unit). */
  push(round: readonly number[]): void {
    const xs = checkRound(this.#s, round, this.#rounds.length);
    const n = this.#moments.n;
    const t = n + 1;
    this.#moments = {
      n,
      mean: (0.5 + this.#sum) / (n + 1),
      variance: this.#squares / (n + 1),
      plugIn: Math.sqrt(this.#s.logTerm / ((this.#squares / t) * t * Math.log(1 + t))),
    };
    for (const p of this.#points) {
      const f = roundLog(xs, this.#moments, p.m, this.#s.cap);
      p.k.upP += f.upP;
      p.k.upG += f.upG;
      p.k.downP += f.downP;
      p.k.downG += f.downG;
      p.up = Math.max(p.up, logMean(p.k.upP, p.k.upG));
      p.down = Math.max(p.down, logMean(p.k.downP, p.k.downG));
    }
    this.#rounds.push(xs);
    let count = n;
    for (const x of xs) {
      count++;
      this.#sum += x;
      this.#squares += (x - (0.5 + this.#sum) / (count + 1)) ** 2;
    }
    this.#moments = { ...this.#moments, n: count };
    if (this.#decided === undefined) {
      const now = this.#now();
      if (now !== undefined) this.#decided = { decision: now, round: this.#rounds.length };
    }
  }

  /** The first decision reached and the round it came at (kept once reached), else undefined. */
  decision(): { decision: SequenceDecision; round: number } | undefined {
    return this.#decided;
  }

  #now(): SequenceDecision | undefined {
    const bar = this.#s.logBar;
    const [zero, margin] = this.#points;
    const hit = (p: typeof zero) => p !== undefined && (p.up >= bar || p.down >= bar);
    if (!hit(zero) && !(margin !== undefined && margin.up >= bar)) return undefined;
    // A side reached its bar at a watched point: the decision is what the whole sequence's bounds say.
    const { lower, upper } = bounds(this.#s, this.#rounds);
    if (lower > zero!.m) return "better";
    if (upper < zero!.m) return "worse";
    if (margin !== undefined && lower > margin.m) return "non-inferior";
    return undefined;
  }
}
