// pass@k and pass^k from n trials with c passes, exactly as the original halo scorecard computes
// them (originals.md §6.6): the unbiased pass@k of Chen et al. 2021, 1 - Π_{i=n-c+1..n}(1 - k/i)
// (1 when n - c < k), and pass^k = Π_{i<k} (c-i)/(n-i), the chance that k draws without replacement
// all pass. Over a suite: per task with k = min(k, n), averaged over tasks in sorted order.
import { count, fail } from "./_check.ts";

/** One task's tally: its name, trials run and trials passed. */
export interface TaskTally {
  task: string;
  trials: number;
  passes: number;
}

function check(what: string, n: number, c: number, k: number): void {
  count(what, "n", n);
  count(what, "c", c);
  count(what, "k", k);
  if (n < 1) fail(what, "n must be at least 1");
  if (c > n) fail(what, `c ${c} exceeds n ${n}`);
  if (k < 1) fail(what, "k must be at least 1");
  if (k > n) fail(what, `k ${k} exceeds n ${n}`);
}

/** Unbiased pass@k: the chance at least one of k trials drawn from n (c passing) passes. */
export function passAtK(n: number, c: number, k: number): number {
  check("compute pass@k", n, c, k);
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/** pass^k: the chance all k trials drawn from n (c passing) pass; C(c, k) / C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  check("compute pass^k", n, c, k);
  if (c < k) return 0;
  let all = 1;
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i);
  return all;
}

/** Suite pass@k and pass^k: per task with k = min(k, trials), averaged over tasks sorted by name. */
export function suitePassK(tasks: readonly TaskTally[], k: number): { passAtK: number; passHatK: number } {
  const what = "compute suite pass@k";
  if (tasks.length === 0) fail(what, "no tasks");
  count(what, "k", k);
  if (k < 1) fail(what, "k must be at least 1");
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.task)) fail(what, `task "${t.task}" appears twice`);
    if (t.trials === 0) fail(what, `task "${t.task}" has no trials`);
    seen.add(t.task);
  }
  const sorted = [...tasks].sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0));
  let at = 0;
  let hat = 0;
  for (const t of sorted) {
    const kk = Math.min(k, t.trials);
    at += passAtK(t.trials, t.passes, kk);
    hat += passHatK(t.trials, t.passes, kk);
  }
  return { passAtK: at / sorted.length, passHatK: hat / sorted.length };
}
