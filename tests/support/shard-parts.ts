// The merge refusal tables of every lane (run-eval, eval-steps, core/shard-set) build their bad shard
// sets the same way: a shard's document edited in a deep copy, the last unit of one shard moved into
// another (dealt to the wrong shard), and a refusal read back as its exit code and one line.

/** What a sharded document carries: the shard stamp's unit ids and their positions in the whole run. */
export interface Sharded {
  shard?: { ids: string[]; at: number[] } | undefined;
}

/** The exit code and message `fn` throws with, or undefined when it does not throw. */
export function refusal(fn: () => unknown): { exit: number | undefined; message: string } | undefined {
  try {
    fn();
  } catch (e) {
    return { exit: (e as { exitCode?: number }).exitCode, message: (e as Error).message };
  }
  return undefined;
}

/**
 * `edited(k, edit)`: `{file: "s<k>.json", [key]: shard k's document}` as a deep copy changed by
 * `edit`; `asIs(k)` the copy unchanged. `docs` is read at each call (the shards exist only once run).
 */
export function shardEditor<T, K extends string>(key: K, docs: () => readonly (T | undefined)[]) {
  const edited = (k: number, edit: (doc: T) => void = () => {}) => {
    const doc = structuredClone(docs()[k] as T);
    edit(doc);
    return { file: `s${k}.json`, [key]: doc } as { file: string } & Record<K, T>;
  };
  return { edited, asIs: (k: number) => edited(k) };
}

/** Moves the last unit of `from` (its entry in `list`, its id and position) to the end of `to`. */
export function moveLastUnit<T extends Sharded>(from: T, to: T, list: (doc: T) => unknown[]): void {
  list(to).push(list(from).pop());
  to.shard?.ids.push(from.shard?.ids.pop() as string);
  to.shard?.at.push(from.shard?.at.pop() as number);
}
