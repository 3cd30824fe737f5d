// Blinding (agent_eval.py, reference §5.3 steps 15-16): the scrubber that makes a packet say nothing
// about its arm, and the blind/ packets graders open. Scrubbing replaces, longest first, every
// literal token (both arms' SHAs and skills trees with all their 7-12 character prefixes, every run,
// temp and store path in its given, absolute and real forms), then each ref as a whole word only
// (a ref `main` leaves `domain` alone but takes `main.py`'s `main`), then the words baseline and
// candidate, all with `[redacted]`. Credentials a transcript may carry go through lib/redact first.
import { lstatSync, readdirSync, realpathSync, utimesSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfinedPathError, readConfined } from "../core/confined.ts";
import { writeConfined } from "../core/confined-write.ts";
import type { Criterion } from "../leak/index.ts";
import { walkTree } from "../leak/walk.ts";
import { redactText } from "../redact/index.ts";
import { FIXED_MTIME, pyDump } from "./records.ts";

export const REDACTED = "[redacted]";

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Each hex id with its 7-12 character prefixes. */
export function withPrefixes(ids: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    out.add(id);
    for (let n = 7; n <= 12 && n < id.length; n++) out.add(id.slice(0, n));
  }
  return out;
}

/** A path in its given, absolute and real forms. */
export function pathForms(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    if (p === "") continue;
    out.add(p);
    out.add(resolve(p));
    try {
      out.add(realpathSync(p));
    } catch {
      // gone already: the given forms are enough
    }
  }
  return out;
}

/** The scrubber: `literals` anywhere (longest first), `refs` as whole words, then the arm words. */
export function scrubber(literals: Iterable<string>, refs: Iterable<string>): (text: string) => string {
  const lits = [...new Set(literals)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  const litRe = lits.length ? new RegExp(lits.map(escapeRegExp).join("|"), "g") : null;
  const refList = [...new Set(refs)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  const refRe = refList.length
    ? new RegExp(`(?<![A-Za-z0-9_])(?:${refList.map(escapeRegExp).join("|")})(?![A-Za-z0-9_])`, "g")
    : null;
  const armRe = /(?<![A-Za-z0-9_])(?:baseline|candidate)(?![A-Za-z0-9_])/gi;
  return (text) => {
    let out = litRe ? text.replace(litRe, REDACTED) : text;
    if (refRe) out = out.replace(refRe, REDACTED);
    return out.replace(armRe, REDACTED);
  };
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The out/ files of a run (relative, sorted), regular files only: links and specials are left out. */
function outFiles(rawDir: string): string[] {
  const out: string[] = [];
  for (const e of walkTree(join(rawDir, "out"))) if (e.type === "file") out.push(e.path);
  return out;
}

/** A raw file's bytes, read without following a link at any component; empty when it is not one. */
function rawBytes(rawDir: string, rel: string): Uint8Array {
  try {
    return readConfined(rawDir, rel);
  } catch (error) {
    if (error instanceof ConfinedPathError) return new Uint8Array(); // absent or not a regular file
    throw error;
  }
}

/**
 * Writes `blind/<bid>/` from `raw/<bid>/`: the scrubbed transcripts and call log, every UTF-8 out/
 * file (under out/; the copies of the transcript and call log excepted; other files skipped) and
 * criteria.json (ids and text only). Every read and write is confined (lib/core/confined.ts), so a packet
 * holds regular files only and nothing reached through a link. Returns the packet's files,
 * relative to blind/.
 */
export function writePacket(
  blindDir: string,
  bid: string,
  rawDir: string,
  criteria: readonly Criterion[],
  scrub: (text: string) => string,
): string[] {
  const written: string[] = [];
  const put = (rel: string, text: string) => {
    writeConfined(blindDir, `${bid}/${rel}`, text, { mkdirs: true });
    written.push(`${bid}/${rel}`);
  };
  const clean = (bytes: Uint8Array) =>
    scrub(redactText(decodeUtf8(bytes) ?? new TextDecoder().decode(bytes)).text);
  for (const name of ["transcript.txt", "transcript.stderr.txt", "gh-calls.jsonl"])
    put(name, clean(rawBytes(rawDir, name))); // an agent that removed one gets an empty file
  for (const rel of outFiles(rawDir)) {
    if (rel === "transcript.txt" || rel === "gh-calls.jsonl") continue;
    const text = decodeUtf8(rawBytes(rawDir, `out/${rel}`));
    if (text !== null) put(`out/${rel}`, scrub(redactText(text).text));
  }
  put("criteria.json", pyDump(criteria.map((c) => ({ id: c.id, text: c.text }))));
  return written;
}

/** Sets one fixed mtime on a tree (links not followed), so creation order says nothing. */
export function stampTree(path: string, mtime = FIXED_MTIME): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) for (const name of readdirSync(path)) stampTree(join(path, name), mtime);
  utimesSync(path, mtime, mtime);
}
