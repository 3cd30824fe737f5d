// What the judge is shown of a trial's change, chosen so that no decoy can crowd out what decides the
// grade: every changed path is ranked (paths a diff grader protects, then paths the task's checks name,
// then other changes, .git last; within each, edits and deletions of paths /work started with before
// added paths, the largest first), the first JUDGE_MAX_FILES are shown, and the 64 KiB of
// content is shared fairly among their files (a small file whole, a large one cut to its share), so
// neither many small files nor one large one can push the real change out. Whatever is not shown is
// counted and listed for the judge, and recorded on the grade. Files are read in one phase, only those
// the after-snapshot saw as regular files, with no link at any component, each capped at its share; a
// whole read must match the snapshot's SHA-256, so what the judge sees is what the diff saw.
import { Buffer } from "node:buffer";
import { sha256Hex } from "../../core/hash.ts";
import type { ChangedFile, ChangeView, Tier } from "../judge/prompt.ts";
import type { Exec } from "./exec.ts";
import { anyGlobMatches } from "./glob.ts";
import type { Change, Entry } from "./snapshot.ts";
import type { AnyGrader } from "./spec.ts";

/** The most of the change's content a judge is shown, in bytes (the original's cap). */
export const JUDGE_INPUT_CAP = 64 * 1024;

/** The most changed paths a judge is shown; the rest are counted and listed. */
export const JUDGE_MAX_FILES = 256;

/** The longest path read (PATH_MAX): 256 of them stay well inside one argv; a longer one is not read. */
const MAX_READ_PATH = 4096;

/** The most omitted paths listed to the judge and recorded on the grade. */
export const OMITTED_LISTED = 100;

/** What decides where a changed path ranks: the trial's graders and its check command. */
export interface ViewContext {
  graders: readonly AnyGrader[];
  check?: string;
}

/** What a judge grade records of what its judge was shown. */
export interface ShownRecord {
  /** Paths changed in /work. */
  changed: number;
  /** Paths shown (in `order.files`), of which `truncated` were cut to their share. */
  files: number;
  truncated: string[];
  /** Paths not shown, and the first OMITTED_LISTED of them. */
  omitted: number;
  omittedPaths: string[];
}

/** A changed path ranked for the judge. */
type Ranked = Change & { tier: Tier; size: number };

/** The words of shell commands, for "does the check name this path". */
function words(commands: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const c of commands)
    for (const w of c.split(/[\s;&|<>()`'"=,]+/)) if (w !== "") out.add(w.replace(/^\.\//, ""));
  return out;
}

/**
 * Ranks every change: tier; then changes to paths /work started with (modified, deleted) before added
 * ones, which cost an agent nothing to make many of; then the larger first; then path order.
 */
export function rank(all: readonly Change[], ctx: ViewContext): Ranked[] {
  const protect = ctx.graders.flatMap((g) => (g.type === "diff" ? g.mustNotChange : []));
  const named = ctx.graders.flatMap((g) => (g.type === "diff" ? g.mustChange : []));
  const checked = words([
    ...(ctx.check !== undefined ? [ctx.check] : []),
    ...ctx.graders.flatMap((g) => (g.type === "command" ? [g.run] : g.type === "file" ? [g.path] : [])),
  ]);
  const tierOf = (p: string): Tier =>
    anyGlobMatches(protect, p)
      ? "protected"
      : checked.has(p) || anyGlobMatches(named, p)
        ? "checked"
        : p === ".git" || p.startsWith(".git/")
          ? "git"
          : "changed";
  const sizeOf = (e: Entry | undefined) => (e?.kind === "file" ? e.size : 0);
  const order = (t: Tier) => ["protected", "checked", "changed", "git"].indexOf(t);
  return all
    .map((c) => ({ ...c, tier: tierOf(c.path), size: Math.max(sizeOf(c.after), sizeOf(c.before)) }))
    .sort(
      (a, b) =>
        order(a.tier) - order(b.tier) ||
        Number(a.change === "added") - Number(b.change === "added") ||
        b.size - a.size ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
}

/** Each size's share of `budget`: the smaller whole, the rest split evenly among the larger. */
export function shares(sizes: readonly number[], budget: number): number[] {
  const out = new Array<number>(sizes.length).fill(0);
  const idx = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]!);
  let left = budget;
  for (const [k, i] of idx.entries()) {
    const fair = Math.floor(left / (idx.length - k));
    out[i] = Math.min(sizes[i]!, fair);
    left -= out[i]!;
  }
  return out;
}

// For each (share, path): its first `share` bytes in base64 then a "." line, or a "!" line when any
// component is a link or the path is not a regular file.
const READ = `while [ $# -gt 1 ]; do
  n=$1 p=$2; shift 2; q= ok=1
  IFS=/; set -f
  for c in $p; do q=\${q:+$q/}$c; [ -L "$q" ] && ok=; done
  unset IFS; set +f
  if [ -n "$ok" ] && [ -f "$p" ]; then head -c "$n" < "$p" | base64; echo .; else echo !; fi
done`;

/** The read's records: each file's base64 (its lines joined) up to a "." line; null for a "!" line. */
function readRecords(stdout: string): (string | null)[] {
  const out: (string | null)[] = [];
  let acc = "";
  for (const line of stdout.split("\n")) {
    if (line === "." || line === "!") {
      out.push(line === "." ? acc : null);
      acc = "";
    } else acc += line;
  }
  return out;
}

/** Text when `bytes` decode as UTF-8 without NUL (a cut file may end mid-character), else null. */
function asText(bytes: Buffer, cut: boolean): string | null {
  if (bytes.includes(0)) return null;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let drop = 0; drop <= (cut ? 3 : 0); drop++) {
    try {
      return decoder.decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      // not UTF-8 (yet)
    }
  }
  return null;
}

const SPECIAL: Record<string, string> = {
  fifo: "a FIFO",
  special: "a socket or device",
  unreadable: "a file that cannot be read",
  "unreadable-dir": "a directory that cannot be read",
};

/** A ranked change as shown without reading it (anything but a regular file now there). */
function unreadView(c: Ranked): ChangedFile {
  const base = { path: c.path, change: c.change, tier: c.tier, content: null };
  const a = c.after;
  if (a === undefined) return { ...base, kind: "deleted" };
  if (a.kind === "link") return { ...base, kind: "link", target: a.target };
  return { ...base, kind: "special", special: SPECIAL[a.kind] ?? "a special file" };
}

/**
 * The judge's view of `all` changes: the files shown (content read in one phase through `exec`), the
 * view for its change summary, and the record for the grade. Throws when the read cannot run.
 */
export async function judgeView(
  exec: Exec,
  all: readonly Change[],
  ctx: ViewContext,
): Promise<{ changed: ChangedFile[]; view: ChangeView; shown: ShownRecord }> {
  const ranked = rank(all, ctx);
  const chosen = ranked.slice(0, JUDGE_MAX_FILES);
  const toRead = chosen.filter((c) => c.after?.kind === "file" && Buffer.byteLength(c.path) <= MAX_READ_PATH);
  const share = shares(
    toRead.map((c) => c.size),
    JUDGE_INPUT_CAP,
  );
  const shareOf = new Map(toRead.map((c, i) => [c.path, share[i]!]));
  const read = new Map<string, string | null>();
  if (toRead.length > 0) {
    const args = toRead.flatMap((c) => [String(shareOf.get(c.path)), c.path]);
    const r = await exec(["sh", "-c", READ, "sh", ...args]);
    if (r.exitCode !== 0 || r.infraError || r.timedOut)
      throw new Error(`read the changed files: exit ${r.exitCode ?? -1}`);
    const records = readRecords(r.stdout);
    for (const [i, c] of toRead.entries()) read.set(c.path, records[i] ?? null);
  }
  const changed = chosen.map((c): ChangedFile => {
    const a = c.after;
    if (a?.kind !== "file") return unreadView(c);
    if (!shareOf.has(c.path))
      return {
        path: c.path,
        change: c.change,
        tier: c.tier,
        content: null,
        kind: "special",
        special: "a path too long to read",
      };
    const base = { path: c.path, change: c.change, tier: c.tier, bytes: a.size };
    const b64 = read.get(c.path) ?? null;
    const bytes = b64 === null ? null : Buffer.from(b64, "base64");
    const cut = bytes !== null && bytes.length < a.size;
    const consistent =
      bytes !== null && (cut ? bytes.length === shareOf.get(c.path) : sha256Hex(bytes) === a.sha256);
    if (!consistent) return { ...base, content: null, kind: "unread" };
    const text = asText(bytes, cut);
    if (text === null) return { ...base, content: null, kind: "binary" };
    return { ...base, content: text, kind: "text", ...(cut ? { truncated: true } : {}) };
  });
  const omitted = ranked.slice(chosen.length).map((c) => c.path);
  const count = (k: Change["change"]) => all.filter((c) => c.change === k).length;
  const omittedPaths = omitted.slice(0, OMITTED_LISTED);
  return {
    changed,
    view: {
      added: count("added"),
      modified: count("modified"),
      deleted: count("deleted"),
      omitted: omitted.length,
      omittedPaths,
    },
    shown: {
      changed: all.length,
      files: changed.length,
      truncated: changed.filter((f) => f.truncated).map((f) => f.path),
      omitted: omitted.length,
      omittedPaths,
    },
  };
}
