// A minimal ustar writer for the few small files a phase gets before its exec (a driver's settings
// under HOME). Files and their parent directories below the top level (/tmp/home, /tmp/home/.claude,
// /etc/claude-code) belong to the exec user, so the CLI can write next to its settings; top-level
// directories (/tmp, /etc) get no entry, so the image's owner and mode for them stay.

function field(buf: Buffer, off: number, len: number, value: string): void {
  buf.write(value, off, Math.min(len, Buffer.byteLength(value)), "utf8");
}

function octal(buf: Buffer, off: number, len: number, n: number): void {
  field(buf, off, len, `${n.toString(8).padStart(len - 1, "0")}\0`);
}

/** Splits a path into ustar name (<=100 bytes) and prefix (<=155 bytes), or throws. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: "" };
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`Cannot put "${path}" in a tar: path too long`);
}

function header(
  path: string,
  o: { mode: number; uid: number; gid: number; size: number; type: "0" | "5" },
): Buffer {
  const h = Buffer.alloc(512);
  const { name, prefix } = splitName(path);
  field(h, 0, 100, name);
  octal(h, 100, 8, o.mode);
  octal(h, 108, 8, o.uid);
  octal(h, 116, 8, o.gid);
  octal(h, 124, 12, o.size);
  octal(h, 136, 12, 0);
  h.fill(" ", 148, 156);
  field(h, 156, 1, o.type);
  field(h, 257, 8, "ustar\u000000");
  field(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/** A tar of files at absolute container paths (stored relative to /), owned by uid:gid with their new parents. */
export function tarFiles(
  files: { path: string; content: string; mode?: number }[],
  owner = { uid: 0, gid: 0 },
): Buffer {
  const parts: Buffer[] = [];
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
      parts.push(header(dir, { mode: 0o755, ...owner, size: 0, type: "5" }));
    }
    const body = Buffer.from(f.content, "utf8");
    parts.push(header(rel, { mode: f.mode ?? 0o644, ...owner, size: body.length, type: "0" }));
    parts.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
