// The /work snapshot the diff grader and the judge compare: one listing of every entry under /work,
// .git included, taken in a fresh read-only phase before the agent (after the task's setup) and
// after it. The listing is NUL-separated records that a file name cannot forge (a name holds no NUL):
// a regular file is its SHA-256, size and executable bit; a link is its target, read with readlink
// and never followed; a FIFO, socket, device, unreadable file or unreadable directory is its kind.
// Plainly named regular files are hashed in batches (one sha256sum and one cksum per find batch,
// their lines checked against the names given); any other entry gets a record of its own.
// Everything the agent left is hostile: nothing here opens a FIFO or follows a link.

/** What one path of /work is. */
export type Entry =
  | { kind: "file"; sha256: string; size: number; exec: boolean }
  | { kind: "link"; target: string }
  | { kind: "unreadable"; exec: boolean }
  | { kind: "unreadable-dir" }
  | { kind: "fifo" }
  | { kind: "special" };

/** path -> entry of every non-directory entry under /work (and every directory it cannot read). */
export type Snapshot = Map<string, Entry>;

// One record per entry the batch below does not take: links, directories it cannot read, special
// files and regular files whose path holds a newline, a carriage return or a backslash (sha256sum
// and cksum would print those names escaped, or on two lines). `$h` is the SHA-256 tool.
const ENTRY = `for p do
  if [ -L "$p" ]; then printf 'l\\0%s\\0' "$p"; readlink "$p" || exit 3; printf '\\0'
  elif [ -d "$p" ]; then { [ -r "$p" ] && [ -x "$p" ]; } || printf 'd\\0%s\\0\\0' "$p"
  elif [ -f "$p" ]; then
    x=-; [ -x "$p" ] && x=x
    if [ -r "$p" ]; then printf 'f\\0%s\\0%s\\n' "$p" "$x"; $h < "$p" || exit 3; cksum < "$p" || exit 3; printf '\\0'
    else printf 'u\\0%s\\0%s\\0' "$p" "$x"; fi
  elif [ -p "$p" ]; then printf 'p\\0%s\\0\\0' "$p"
  else printf 'o\\0%s\\0\\0' "$p"; fi
done`;

// Plainly named regular files, all readable (else each gets its own record): their names, then one
// sha256sum and one cksum over all of them, whose lines the parser matches name by name.
const BATCH = `for p do [ -r "$p" ] || { sh -c "$E" sh "$@"; exit; }; done
printf 'F\\0%s\\0' $#
for p do x=-; [ -x "$p" ] && x=x; printf '%s%s\\0' "$x" "$p"; done
$h "$@" || exit 3
cksum "$@" || exit 3
printf '\\0'`;

const LIST = `E=$1 B=$2
if command -v sha256sum >/dev/null 2>&1; then h=sha256sum
elif command -v shasum >/dev/null 2>&1; then h="shasum -a 256"
else echo "snapshot: no sha256sum or shasum" >&2; exit 127; fi
export E h
nl='
'
cr=$(printf '\\r')
find . \\( ! -type f -o -path "*$nl*" -o -path "*$cr*" -o -path '*\\\\*' \\) -exec sh -c "$E" sh {} + -o -exec sh -c "$B" sh {} +
printf 'end\\0%s\\0' $?`;

/** The snapshot command, run with /work as its directory. */
export const SNAPSHOT_ARGV = ["sh", "-c", LIST, "sh", ENTRY, BATCH];

const HEX64 = /^[0-9a-f]{64}$/;
const FILE_PAYLOAD = /^([x-])\n([0-9a-f]{64}) {2}-\n(\d+) (\d+)\n$/;

/** A listing path without its `./`; the root itself is `.`. */
const clean = (p: string) => (p === "." ? "." : p.replace(/^\.\//, ""));

/**
 * Parses the listing. Every record must be whole and the last one `end`: anything else is an
 * error, never a partial snapshot. Two entries whose names decode to the same text (bytes that are
 * not UTF-8) are both kept, the second under `<path>\0<n>`, so none can hide behind another.
 */
export function parseListing(stdout: string): { files: Snapshot; status: number } | { error: string } {
  const t = stdout.split("\0");
  const files: Snapshot = new Map();
  const put = (path: string, e: Entry) => {
    let key = clean(path);
    for (let n = 2; files.has(key); n++) key = `${clean(path)}\0${n}`;
    files.set(key, e);
  };
  let i = 0;
  const next = () => t[i++];
  for (;;) {
    const type = next();
    const bad = (why: string) => ({ error: `unexpected listing: record ${JSON.stringify(type)}: ${why}` });
    if (type === undefined || (type === "" && i === t.length))
      return { error: "unexpected listing: no end record" };
    if (type === "end") {
      const status = Number(next());
      if (!Number.isInteger(status) || next() !== "" || i !== t.length) return bad("not at the end");
      return { files, status };
    }
    if (type === "F") {
      const n = Number(next());
      if (!Number.isInteger(n) || n < 1) return bad("bad count");
      const names: { path: string; exec: boolean }[] = [];
      for (let k = 0; k < n; k++) {
        const name = next();
        if (name === undefined || !/^[x-]\.\//.test(name)) return bad("bad name");
        names.push({ path: name.slice(1), exec: name[0] === "x" });
      }
      const lines = (next() ?? "").split("\n");
      if (lines.length !== 2 * n + 1 || lines[2 * n] !== "") return bad(`want ${2 * n} lines`);
      for (const [k, { path, exec }] of names.entries()) {
        const sum = lines[k]!;
        const size = /^(\d+) (\d+) (.*)$/s.exec(lines[n + k]!);
        if (!HEX64.test(sum.slice(0, 64)) || sum.slice(64) !== `  ${path}` || size?.[3] !== path)
          return bad(`no checksum for ${JSON.stringify(path)}`);
        put(path, { kind: "file", sha256: sum.slice(0, 64), size: Number(size[2]), exec });
      }
      continue;
    }
    const path = next();
    const payload = next();
    if (path === undefined || payload === undefined) return bad("cut short");
    if (type === "l") {
      if (!payload.endsWith("\n")) return bad("no link target");
      put(path, { kind: "link", target: payload.slice(0, -1) });
    } else if (type === "f") {
      const m = FILE_PAYLOAD.exec(payload);
      if (!m) return bad(`no checksum for ${JSON.stringify(path)}`);
      put(path, { kind: "file", sha256: m[2]!, size: Number(m[4]), exec: m[1] === "x" });
    } else if (type === "u" && (payload === "x" || payload === "-"))
      put(path, { kind: "unreadable", exec: payload === "x" });
    else if (type === "d" && payload === "") put(path, { kind: "unreadable-dir" });
    else if (type === "p" && payload === "") put(path, { kind: "fifo" });
    else if (type === "o" && payload === "") put(path, { kind: "special" });
    else return bad("unknown");
  }
}

/** The same entry in both snapshots: same kind and the same content, target or mode. */
export function sameEntry(a: Entry, b: Entry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One changed path: what it was before the agent and what it is after (absent: not there). */
export interface Change {
  path: string;
  change: "added" | "modified" | "deleted";
  before?: Entry;
  after?: Entry;
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Added, modified and deleted paths between two snapshots, in code-point order. */
export function changes(before: Snapshot, after: Snapshot): Change[] {
  const out: Change[] = [];
  for (const [path, a] of after) {
    const b = before.get(path);
    if (b === undefined) out.push({ path, change: "added", after: a });
    else if (!sameEntry(a, b)) out.push({ path, change: "modified", before: b, after: a });
  }
  for (const [path, b] of before) if (!after.has(path)) out.push({ path, change: "deleted", before: b });
  return out.sort(byPath);
}
