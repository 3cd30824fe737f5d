// What a miss tells the author: after gh_shim.py's three lines, the closest recorded entries
// (ranked by common leading tokens, then token edit distance, on normalised argv) and, for each,
// the token edits that would make it match. Only runs on a miss, so it may read the whole cassette.
import type { Cassette, CassetteCall } from "../cassette.ts";

/** One token-level difference between a recorded argv and the call. */
export type TokenEdit =
  | { op: "replace"; at: number; recorded: string; called: string }
  | { op: "missing"; recordedAt: number; recorded: string }
  | { op: "extra"; at: number; called: string };

/**
 * Levenshtein alignment of two token lists, as the edits turning `recorded` into `called`. The
 * table holds suffix distances and is walked from the front, preferring a replacement, so edits
 * read left to right the way an author compares two command lines.
 */
export function tokenEdits(recorded: readonly string[], called: readonly string[]): TokenEdit[] {
  const n = recorded.length;
  const m = called.length;
  const d: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      if (i === n) d[i]![j] = m - j;
      else if (j === m) d[i]![j] = n - i;
      else {
        const same = recorded[i] === called[j] ? 0 : 1;
        d[i]![j] = Math.min(d[i + 1]![j]! + 1, d[i]![j + 1]! + 1, d[i + 1]![j + 1]! + same);
      }
    }
  }
  const edits: TokenEdit[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const here = d[i]![j]!;
    if (i < n && j < m && here === d[i + 1]![j + 1]! + (recorded[i] === called[j] ? 0 : 1)) {
      if (recorded[i] !== called[j])
        edits.push({ op: "replace", at: j, recorded: recorded[i]!, called: called[j]! });
      i++;
      j++;
    } else if (i < n && here === d[i + 1]![j]! + 1) {
      edits.push({ op: "missing", recordedAt: i, recorded: recorded[i]! });
      i++;
    } else {
      edits.push({ op: "extra", at: j, called: called[j]! });
      j++;
    }
  }
  return edits;
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}

/** A ranked near miss: the entry and what differs. */
export interface NearMiss {
  call: CassetteCall;
  edits: TokenEdit[];
}

/**
 * The `limit` entries closest to `key` among those sharing its first token; a prefix entry is
 * compared with the call cut to its length.
 */
export function nearestCalls(calls: readonly CassetteCall[], key: readonly string[], limit = 3): NearMiss[] {
  const scored = calls.map((call) => {
    const target = call.prefix ? key.slice(0, call.key.length) : key;
    const edits = tokenEdits(call.key, target);
    return { call, edits, common: commonPrefix(call.key, key), cost: edits.length };
  });
  const related = scored.filter((s) => s.common > 0);
  related.sort((a, b) => b.common - a.common || a.cost - b.cost || a.call.index - b.call.index);
  return related.slice(0, limit).map(({ call, edits }) => ({ call, edits }));
}

/** One edit in words, e.g. `argv[2]: recorded "7", called "8"`. */
export function describeEdit(e: TokenEdit): string {
  const q = JSON.stringify;
  if (e.op === "replace") return `argv[${e.at}]: recorded ${q(e.recorded)}, called ${q(e.called)}`;
  if (e.op === "missing") return `missing ${q(e.recorded)} (recorded argv[${e.recordedAt}])`;
  return `extra ${q(e.called)} (called argv[${e.at}])`;
}

/** The lines printed after the original miss message (each ends in a newline). */
export function missHints(cassette: Cassette, key: readonly string[]): string {
  const total = cassette.raw.length;
  const usable = cassette.calls.length;
  let out = `  hint: the cassette exists and has ${usable} usable ${usable === 1 ? "entry" : "entries"}`;
  out += total === usable ? "" : ` (${total - usable} skipped: not an object or argv not a list)`;
  out += `; the call normalises to ${JSON.stringify(key)}\n`;
  const near = nearestCalls(cassette.calls, key);
  if (near.length === 0) {
    const commands = [...new Set(cassette.calls.map((c) => c.key.slice(0, 2).join(" ")))];
    const shown = commands
      .slice(0, 5)
      .map((c) => JSON.stringify(c))
      .join(", ");
    const more = commands.length > 5 ? `, ... (${commands.length} in all)` : "";
    return `${out}  no recorded entry starts with ${JSON.stringify(key[0] ?? "")}${commands.length ? `; recorded: ${shown}${more}` : ""}\n`;
  }
  out += "  closest recorded entries:\n";
  for (const { call, edits } of near) {
    const kind = call.prefix ? "prefix " : "";
    out += `    calls[${call.index}] ${kind}${JSON.stringify(call.key)}\n`;
    for (const e of edits.slice(0, 4)) out += `      ${describeEdit(e)}\n`;
    if (edits.length > 4) out += `      ... and ${edits.length - 4} more differences\n`;
  }
  return out;
}

/** The hint after `✗ cassette not found: <path>`. */
export function notFoundHint(path: string): string {
  return `  hint: no file at ${JSON.stringify(path)}; check EVAL_CASSETTES, or record one: gh-shim record --cassette ${JSON.stringify(path)} -- COMMAND\n`;
}
