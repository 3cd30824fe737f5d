// The few small files a phase gets before its exec (a driver's settings under HOME), as a tar for
// `docker cp -` (written by lib/core/tar.ts), and a phase's input: /work's snapshot with them appended. Files and their parent directories below the top level
// (/tmp/home, /tmp/home/.claude, /etc/claude-code) belong to the exec user, so the CLI can write next
// to its settings; top-level directories (/tmp, /etc) get no entry, so the image's owner and mode stay.
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { appendFileSync, closeSync, copyFileSync, openSync, readSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { headerNumber, type TarEntry, tar } from "../../core/tar.ts";

/** A tar of files at absolute container paths (stored relative to /), owned by uid:gid with their new parents. */
export function tarFiles(
  files: { path: string; content: string; mode?: number }[],
  owner = { uid: 0, gid: 0 },
): Buffer {
  const entries: TarEntry[] = [];
  const dirs = new Set<string>();
  for (const f of files) {
    const rel = f.path.replace(/^\/+/, "");
    if (!f.path.startsWith("/") || rel === "" || rel.split("/").includes(".."))
      throw new Error(`Cannot write "${f.path}" into a container: expected an absolute path without ".."`);
    const segs = rel.split("/");
    for (let i = 2; i < segs.length; i++) {
      const dir = `${segs.slice(0, i).join("/")}/`;
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      entries.push({ kind: "dir", name: dir });
    }
    entries.push({ kind: "file", name: rel, data: Buffer.from(f.content, "utf8"), mode: f.mode });
  }
  return tar(entries, owner);
}

/**
 * The bytes a phase reads first: the /work snapshot, the phase's files appended before its end (one
 * tar), then, for an attached phase, the command's stdin. `tarBytes` is where the tar ends; `sparse`
 * says the snapshot holds a GNU sparse member (its holes kept: only GNU tar or the engine unpack it);
 * `copy` says the file is a fresh one in `dir` for the caller to remove.
 */
export function phaseInput(
  snapshot: string,
  dir: string,
  files: { path: string; content: string; mode?: number }[],
  owner: { uid: number; gid: number },
  stdin = "",
): { path: string; tarBytes: number; sparse: boolean; copy: boolean } {
  const scan = tarScan(snapshot);
  if (!files.length && !stdin)
    return { path: snapshot, tarBytes: statSync(snapshot).size, sparse: scan.sparse, copy: false };
  const path = join(dir, `.in.${randomBytes(4).toString("hex")}.tar`);
  copyFileSync(snapshot, path);
  if (files.length) {
    truncateSync(path, scan.end);
    appendFileSync(path, tarFiles(files, owner));
  }
  const tarBytes = statSync(path).size;
  if (stdin) appendFileSync(path, stdin);
  return { path, tarBytes, sparse: scan.sparse, copy: true };
}

/**
 * The byte offset where the archive at `path` ends (its first end-of-archive zero block), so another
 * tar's entries can follow it in one stream: docker's untar stops at the first end-of-archive.
 */
export function tarEnd(path: string): number {
  return tarScan(path).end;
}

/**
 * Where the archive at `path` ends (tarEnd) and whether it holds a sparse member (a PAX header with
 * GNU.sparse records, as _sparse.ts writes them, or GNU's older typeflag S).
 */
export function tarScan(path: string): { end: number; sparse: boolean } {
  const fd = openSync(path, "r");
  let sparse = false;
  try {
    const block = Buffer.alloc(512);
    for (let at = 0; ; ) {
      if (readSync(fd, block, 0, 512, at) < 512 || block.every((b) => b === 0)) return { end: at, sparse };
      const size = headerNumber(block.subarray(124, 136));
      const type = block[156];
      if (type === 0x78 /* x */ && !sparse && size <= 1 << 20) {
        const data = Buffer.alloc(size);
        readSync(fd, data, 0, size, at + 512);
        sparse = data.includes("GNU.sparse.major=");
      }
      // GNU's S member may go on in extension blocks before its data (isextended, then byte 504 of each).
      let more = type === 0x53 /* S */ && block[482] !== 0;
      sparse ||= type === 0x53;
      at += 512;
      while (more && readSync(fd, block, 0, 512, at) === 512) {
        more = block[504] !== 0;
        at += 512;
      }
      at += Math.ceil(size / 512) * 512;
    }
  } finally {
    closeSync(fd);
  }
}
