// The diff of /work a transcript shows: every path the agent added, deleted or modified (two
// WorkTrees of lib/isolation/work-tree.ts compared by SHA-256, kind, link target and executable bit),
// with a unified diff of each text file whose bytes were kept. The line diff trims the common head
// and tail and runs an LCS on the rest when it is small enough, else shows the rest as replaced:
// bounded work and memory whatever the agent wrote. Patches are capped (format.ts).
import type { WorkEntry, WorkTree } from "../../isolation/work-tree.ts";
import { DIFF_FILES_CAP, type FileChange, PATCH_CAP, PATCHES_CAP, type Transcript } from "./format.ts";

/** LCS tables past this many cells are not built: the changed middle is shown as replaced. */
const LCS_CELLS = 1_000_000;
const CONTEXT = 3;

type Op = { kind: " " | "-" | "+"; line: string };

/** The text of a file's bytes, or undefined when they are not text (a NUL, or not UTF-8). */
function textOf(data: Buffer | undefined): string | undefined {
  if (data === undefined || data.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

function lines(s: string): string[] {
  if (s === "") return [];
  const out = s.split("\n");
  if (out.at(-1) === "") out.pop();
  else out[out.length - 1] += "\n\\ No newline at end of file";
  return out;
}

/** The edit script from `a` to `b`, line by line. */
function ops(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const mid: Op[] = [];
  if (x.length * y.length > LCS_CELLS || x.length === 0 || y.length === 0) {
    for (const line of x) mid.push({ kind: "-", line });
    for (const line of y) mid.push({ kind: "+", line });
  } else {
    const w = y.length + 1;
    const t = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        t[i * w + j] =
          x[i] === y[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        mid.push({ kind: " ", line: x[i]! });
        i++;
        j++;
      } else if (i < x.length && (j === y.length || t[(i + 1) * w + j]! >= t[i * w + j + 1]!))
        mid.push({ kind: "-", line: x[i++]! });
      else mid.push({ kind: "+", line: y[j++]! });
    }
  }
  return [
    ...a.slice(0, head).map((line) => ({ kind: " " as const, line })),
    ...mid,
    ...a.slice(a.length - tail).map((line) => ({ kind: " " as const, line })),
  ];
}

/** A unified diff of `before` to `after` (3 lines of context), headed by the path. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const script = ops(lines(before), lines(after));
  const changed = script.flatMap((o, i) => (o.kind === " " ? [] : [i]));
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - CONTEXT);
    let end = changed[k]! + CONTEXT + 1;
    while (k + 1 < changed.length && changed[k + 1]! - CONTEXT <= end) end = changed[++k]! + CONTEXT + 1;
    k++;
    end = Math.min(end, script.length);
    const hunk = script.slice(start, end);
    const aStart = script.slice(0, start).filter((o) => o.kind !== "+").length;
    const bStart = script.slice(0, start).filter((o) => o.kind !== "-").length;
    const aLen = hunk.filter((o) => o.kind !== "+").length;
    const bLen = hunk.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${aLen ? aStart + 1 : aStart},${aLen} +${bLen ? bStart + 1 : bStart},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
  }
  return `${out.join("\n")}\n`;
}

function same(a: WorkEntry, b: WorkEntry): boolean {
  if (a.kind === "file" && b.kind === "file") return a.sha256 === b.sha256 && a.exec === b.exec;
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  return a.kind === b.kind && a.kind === "other";
}

function describe(e: WorkEntry): string {
  return e.kind === "link" ? `a link to ${e.target}` : e.kind === "other" ? "not a regular file" : "";
}

/** One changed path's entry: its patch when both sides are text, else why there is none. */
function change(path: string, a: WorkEntry | undefined, b: WorkEntry | undefined): FileChange {
  const kind = a === undefined ? "added" : b === undefined ? "deleted" : "modified";
  const fa = a?.kind === "file" ? a : undefined;
  const fb = b?.kind === "file" ? b : undefined;
  const notes: string[] = [];
  for (const [side, e] of [
    ["was", a],
    ["is", b],
  ] as const)
    if (e && e.kind !== "file") notes.push(`${side} ${describe(e)}`);
  if (fa && fb && fa.exec !== fb.exec) notes.push(fb.exec ? "made executable" : "no longer executable");
  let patch: string | undefined;
  if ((a === undefined || fa) && (b === undefined || fb) && fa?.sha256 !== fb?.sha256) {
    const unread = [fa, fb].filter((f) => f !== undefined && textOf(f.data) === undefined);
    if (unread.length > 0)
      notes.push(unread.some((f) => f?.data === undefined) ? "large: bytes not kept" : "binary");
    else patch = unifiedDiff(path, textOf(fa?.data) ?? "", textOf(fb?.data) ?? "");
  }
  return {
    path,
    change: kind,
    ...(patch !== undefined ? { patch } : {}),
    ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
  };
}

/** Every path that differs between the two trees, sorted, with patches within the caps. */
export function diffTrees(before: WorkTree, after: WorkTree): NonNullable<Transcript["diff"]> {
  const paths = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => {
      const a = before.get(p);
      const b = after.get(p);
      return !(a && b && same(a, b));
    })
    .sort();
  const files: FileChange[] = [];
  let budget = PATCHES_CAP;
  for (const path of paths.slice(0, DIFF_FILES_CAP)) {
    const c = change(path, before.get(path), after.get(path));
    if (c.patch !== undefined && (c.patch.length > PATCH_CAP || c.patch.length > budget)) {
      c.note = [c.note, `patch of ${c.patch.split("\n").length} lines not kept (over the cap)`]
        .filter(Boolean)
        .join("; ");
      delete c.patch;
    }
    budget -= c.patch?.length ?? 0;
    files.push(c);
  }
  return { files, ...(paths.length > DIFF_FILES_CAP ? { more: paths.length - DIFF_FILES_CAP } : {}) };
}
