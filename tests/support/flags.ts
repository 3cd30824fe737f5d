// Command lines for table-driven CLI tests: a row's flags override the base's. Every tool refuses a
// single-value flag given twice (lib/core/flags.ts), so a row that changes a base flag must replace it.

/** `base` with every `--flag value` that `extra` also sets removed, then `extra` appended. */
export function overrideFlags(base: readonly string[], extra: readonly string[]): string[] {
  const set = new Set(extra.filter((a) => a.startsWith("--")));
  const out: string[] = [];
  for (let i = 0; i < base.length; i++) {
    const a = base[i] as string;
    if (set.has(a)) {
      if (i + 1 < base.length && !(base[i + 1] as string).startsWith("--")) i++;
      continue;
    }
    out.push(a);
  }
  return [...out, ...extra];
}
