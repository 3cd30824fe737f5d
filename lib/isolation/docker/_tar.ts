// The few small files a phase gets before its exec (a driver's settings under HOME), as a tar for
// `docker cp -` (written by lib/core/tar.ts). Files and their parent directories below the top level
// (/tmp/home, /tmp/home/.claude, /etc/claude-code) belong to the exec user, so the CLI can write next
// to its settings; top-level directories (/tmp, /etc) get no entry, so the image's owner and mode stay.
import { Buffer } from "node:buffer";
import { type TarEntry, tar } from "../../core/tar.ts";

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
