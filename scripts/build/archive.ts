// Release archives for scripts/build.ts (never shipped), written by lib/core/tar.ts rather than the tar
// CLI: GNU and BSD tar disagree on the flags that make an archive reproducible (sorted names, fixed
// owner and mtime), and an archive here is one directory, one executable and a few symlinks to it.
// Entries carry uid/gid 0, the given mtime and no user names, and gzip runs with no name or time in
// its header, so the same inputs give the same bytes on any machine with the same zlib.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { type TarEntry, tar } from "../../lib/core/tar.ts";

/**
 * The release archive of one platform as .tar.gz bytes: `<dir>/proctor` and one symlink per tool
 * name, so unpacking it gives a folder to put on PATH.
 */
export function releaseArchive(opts: {
  dir: string;
  binary: string;
  links: readonly string[];
  mtime: number;
}): Buffer {
  const entries: TarEntry[] = [
    { kind: "dir", name: `${opts.dir}/` },
    { kind: "file", name: `${opts.dir}/proctor`, data: readFileSync(opts.binary), mode: 0o755 },
    ...[...opts.links]
      .sort()
      .map((link): TarEntry => ({ kind: "symlink", name: `${opts.dir}/${link}`, target: "proctor" })),
  ];
  return gzipSync(tar(entries, { mtime: opts.mtime }), { level: 9 });
}
