// A bounded pool for async work: the one way every lane runs things N at a time (run-eval cases,
// suite trials, step replays, judge calls). Results keep the items' order whatever order they finish.

/** Runs `fn` over `items` with at most `jobs` in flight; results keep the items' order. */
export async function pool<T, R>(
  items: readonly T[],
  jobs: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return results;
}
