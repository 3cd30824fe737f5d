// A minimal ustar writer for the few small files a phase gets before its exec (a driver's settings
// file). Regular files only, no directory entries: docker's extractor creates missing parents and an
// existing directory's owner and mode stay as the image made them.

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

/** A tar archive of files at absolute container paths (stored relative to /), owned by root. */
export function tarFiles(files: { path: string; content: string; mode?: number }[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    const rel = f.path.replace(/^\/+/, "");
    if (!f.path.startsWith("/") || rel === "" || rel.split("/").includes(".."))
      throw new Error(`Cannot write "${f.path}" into a container: expected an absolute path without ".."`);
    const body = Buffer.from(f.content, "utf8");
    const h = Buffer.alloc(512);
    const { name, prefix } = splitName(rel);
    field(h, 0, 100, name);
    octal(h, 100, 8, f.mode ?? 0o644);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, body.length);
    octal(h, 136, 12, 0);
    h.fill(" ", 148, 156);
    field(h, 156, 1, "0");
    field(h, 257, 8, "ustar\u000000");
    field(h, 345, 155, prefix);
    let sum = 0;
    for (const b of h) sum += b;
    field(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    parts.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
