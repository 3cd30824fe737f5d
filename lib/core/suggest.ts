// "Did you mean": the closest valid word to a mistyped flag, subcommand or tool, and the one-line
// refusals that name it. Closeness is the Damerau-Levenshtein distance (optimal string alignment:
// a swap of two neighbours, `jbos` for `jobs`, is one edit); a word too far from every valid one
// gets the valid ones listed instead of a guess. It knows words only, not how a command parses them.

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  // Three rows are enough: a swap looks back two rows.
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (prev2[j - 2] as number) + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] as number;
}

/**
 * The candidate nearest to `word` (the first of equals), or undefined when none is close enough to
 * be what was meant: at most max(2, a third of the word) edits, and fewer edits than either word
 * has letters (so `x` never "means" `j`).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance > limit || distance >= word.length || distance >= c.length) continue;
    if (!best || distance < best.distance) best = { word: c, distance };
  }
  return best?.word;
}

/**
 * `Unknown command "sutie" for agent-eval: did you mean suite?`, or the valid names listed when none
 * is close. `what` names the kind of word (`command`, `tool`); `label` the command it was given to.
 */
export function unknownWord(what: string, word: string, names: readonly string[], label?: string): string {
  const head = `Unknown ${what} "${word}"${label ? ` for ${label}` : ""}`;
  const near = closest(word, names);
  return near ? `${head}: did you mean ${near}?` : `${head}: expected one of ${names.join(", ")}`;
}

/**
 * `Cannot accept unknown flag "--jbos": did you mean --jobs? (see run-eval --help)`. `spellings` maps
 * every accepted spelling (no dashes) to the form shown; `names` are listed when none is close.
 */
export function unknownFlag(
  raw: string,
  spellings: ReadonlyMap<string, string>,
  names: readonly string[],
  command: string,
): string {
  const near = closest(raw.replace(/^--?/, ""), spellings.keys());
  const hint = near
    ? `did you mean ${spellings.get(near)}?`
    : names.length > 0
      ? `expected one of ${names.join(", ")}`
      : `${command} takes no flags`;
  return `Cannot accept unknown flag "${raw}": ${hint} (see ${command} --help)`;
}
