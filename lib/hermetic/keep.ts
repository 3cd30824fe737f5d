// --keep DIR: what a run leaves for inspection once its work directory is gone. Each case gets one
// flat directory DIR/<keepName>/ whose name is the case name percent-encoded (`grp/case-a` is
// `grp%2Fcase-a`), so no case's copy can sit inside another's or remove it, whatever the names; two
// cases of one run with the same name get `~2`, `~3` (`~` never comes out of the encoding). OUT is
// copied streamed and capped (lib/hermetic/copy.ts: holes kept, links kept as links, FIFOs, sockets,
// devices and files over the cap skipped with one line each); a copy that fails is removed whole.
import { lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ConfinedPathError } from "../core/confined.ts";
import { messageOf } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { copyConfined, refusalWords } from "./copy.ts";

const PLAIN = /^[A-Za-z0-9._-]$/;
const MAX_NAME = 200;

/** The directory name under --keep for a case: its name (else its dir name), percent-encoded, flat. */
export function keepName(name: string, caseDir: string): string {
  const raw = name || basename(caseDir);
  let enc = "";
  for (const ch of raw) {
    if (PLAIN.test(ch)) enc += ch;
    else for (const b of Buffer.from(ch, "utf8")) enc += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (enc === "." || enc === "..") enc = enc.replaceAll(".", "%2E");
  if (enc.length > MAX_NAME) enc = `${enc.slice(0, MAX_NAME - 20)}~${sha256Hex(raw).slice(0, 16)}`;
  return enc;
}

// keep root -> (directory name -> case dir) for this process: a case run again reuses its name.
const claimed = new Map<string, Map<string, string>>();

function claim(keep: string, name: string, caseDir: string): string {
  const names = claimed.get(keep) ?? new Map<string, string>();
  claimed.set(keep, names);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}~${n}`;
    const owner = names.get(candidate);
    if (owner === undefined || owner === caseDir) {
      names.set(candidate, caseDir);
      return candidate;
    }
  }
}

/** What one finished case leaves behind. */
export interface KeptRun {
  name: string;
  caseDir: string;
  /** OUT, or null when the subject replaced it with something that is not a directory. */
  out: string | null;
  /** The work directory and the call log's name in it. */
  workRoot: string;
  callLog: string;
  logs: { stdout: string; stderr: string; run: string };
}

/** Where the copy went (null when it failed and was removed) and one line per file not kept. */
export interface KeepResult {
  dir: string | null;
  notes: string[];
}

/**
 * Copies OUT and the logs to <keep>/<keepName>/ (replacing an earlier run's copy), no file over
 * `maxBytes`. Never throws for the copy itself: a failure removes the copy and says so in `notes`.
 */
export function keepRun(keep: string, run: KeptRun, maxBytes: number): KeepResult {
  const dest = resolve(keep, claim(resolve(keep), keepName(run.name, run.caseDir), run.caseDir));
  const notes: string[] = [];
  try {
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    if (run.out) {
      mkdirSync(join(dest, "out"));
      copyTree(run.out, join(dest, "out"), maxBytes, (rel, why) => notes.push(`OUT/${rel}: ${why}`));
    }
    const log = join(dest, "gh-calls.jsonl");
    try {
      copyConfined(run.workRoot, run.callLog, log, maxBytes);
    } catch (error) {
      if (!(error instanceof ConfinedPathError)) throw error;
      if (error.reason !== "missing") notes.push(`${run.callLog}: ${refusalWords(error)}`);
      writeFileSync(log, "");
    }
    writeFileSync(join(dest, "subject.stdout"), run.logs.stdout);
    writeFileSync(join(dest, "subject.stderr"), run.logs.stderr);
    writeFileSync(join(dest, "run.log"), run.logs.run);
  } catch (error) {
    rmSync(dest, { recursive: true, force: true });
    return { dir: null, notes: [`⚠ --keep: cannot keep ${run.name} in ${dest}: ${messageOf(error)}`] };
  }
  return { dir: dest, notes: notes.map((n) => `⚠ --keep: not kept: ${n}`) };
}

/**
 * Copies the tree at `src` into the existing `dest`, iteratively (no recursion limit): directories
 * made, links recreated verbatim, regular files through copyConfined, anything else skipped.
 */
function copyTree(src: string, dest: string, maxBytes: number, skip: (rel: string, why: string) => void) {
  const todo = [""];
  for (let rel = todo.pop(); rel !== undefined; rel = todo.pop()) {
    for (const name of readdirSync(join(src, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(src, r));
      if (st.isDirectory()) {
        mkdirSync(join(dest, r));
        todo.push(r);
      } else if (st.isSymbolicLink()) symlinkSync(readlinkSync(join(src, r)), join(dest, r));
      else if (!st.isFile()) skip(r, "not a regular file");
      else {
        try {
          copyConfined(src, r, join(dest, r), maxBytes);
        } catch (error) {
          if (!(error instanceof ConfinedPathError)) throw error;
          skip(r, refusalWords(error));
        }
      }
    }
  }
}
