// Collecting one run root after its agent exited (reference §5.3 steps 10-11). The root is the
// agent's, so nothing in it is trusted: every entry is reached by a descriptor walk (lib/leak/walk.ts
// over lib/core/confined.ts) and copied, regular files only, into a private directory the agent never saw.
// The leak scan, the raw copy, the packets and the rubric checks all read that copy, never the root.
// A link or a special file where the stage layout (stage.ts) expects a directory or file, a
// non-directory where it expects a directory, and anything but a directory or regular file under
// out/ make the run a leak: nothing is read or written through it. Other links, sockets, FIFOs and
// devices stay behind, listed as skipped (relative to run/).
import { closeSync, constants, lstatSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ConfinedPathError, openConfined, readConfined } from "../core/confined.ts";
import { mkdirConfined, writeConfined } from "../core/confined-write.ts";
import { walkTree } from "../leak/walk.ts";

/** The directories stage.ts lays out; the agent may empty them, never replace them. */
const LAYOUT_DIRS = new Set([
  "run",
  "skills",
  "run/workspace",
  "run/out",
  "run/home",
  "run/tmp",
  "run/gh-config",
  "run/state",
  "run/bin",
]);
/** The files the runner reads back (transcripts, call log) or staged for the agent. */
const LAYOUT_FILES = new Set([
  "run/prompt.txt",
  "run/cassettes.json",
  "run/gh-calls.jsonl",
  "run/transcript.txt",
  "run/transcript.stderr.txt",
]);

/** What collecting found: leak reasons (the run is invalid) and entries left behind. */
export interface Collected {
  reasons: string[];
  skipped: string[];
}

const inOut = (path: string) => path === "run/out" || path.startsWith("run/out/");
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Copies the run root `root` into the empty private directory `dest` (same relative paths), then
 * copies the call log and the transcript into `dest/run/out/` as the original does. Never writes
 * into `root`.
 */
export function collectRunRoot(root: string, dest: string): Collected {
  const reasons: string[] = [];
  const skipped: string[] = [];
  const leak = (why: string) => {
    if (!reasons.includes(why)) reasons.push(why);
  };
  const buf = Buffer.allocUnsafe(1 << 20);
  for (const e of walkTree(root)) {
    const guarded = LAYOUT_DIRS.has(e.path) || LAYOUT_FILES.has(e.path) || inOut(e.path);
    if (e.type === "unlistable") leak(`unreadable ${e.path}`);
    else if (e.type === "dir") mkdirConfined(dest, e.path);
    else if (e.type === "link" || e.type === "special") {
      const what = e.type === "link" ? "symbolic link" : "special file";
      if (guarded) leak(`${what} at ${e.path}`);
      else if (e.path.startsWith("run/")) skipped.push(e.path.slice(4));
    } else if (LAYOUT_DIRS.has(e.path)) leak(`not a directory at ${e.path}`);
    else {
      const why = copyFile(root, e.path, join(dest, e.path), buf);
      if (why) leak(why);
    }
  }
  for (const [from, to] of [
    ["run/gh-calls.jsonl", "run/out/gh-calls.jsonl"],
    ["run/transcript.txt", "run/out/transcript.txt"],
  ] as const) {
    if (!isDir(join(dest, "run", "out")) || !isFile(join(dest, from))) continue;
    writeConfined(dest, to, readConfined(dest, from));
  }
  return { reasons, skipped };
}

/** Streams one file from the untrusted root into `to`; returns a leak reason when it cannot. */
function copyFile(root: string, rel: string, to: string, buf: Buffer): string | null {
  let src: ReturnType<typeof openConfined>;
  try {
    src = openConfined(root, rel);
  } catch (error) {
    if (error instanceof ConfinedPathError) {
      if (error.reason === "link" || error.reason === "not-directory") return `symbolic link at ${rel}`;
      if (error.reason === "not-regular") return `special file at ${rel}`;
    }
    return `unreadable ${rel}`;
  }
  let out: number;
  try {
    out = openSync(to, WRITE_FLAGS, 0o644); // our private copy: a failure here is ours, thrown
  } catch (error) {
    closeSync(src.fd);
    throw error;
  }
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(src.fd, buf, 0, buf.length, null);
      } catch {
        return `unreadable ${rel}`;
      }
      if (n === 0) return null;
      let off = 0;
      while (off < n) off += writeSync(out, buf, off, n - off);
    }
  } finally {
    closeSync(out);
    closeSync(src.fd);
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
