// The digest of what a path holds, for "the same inputs" checks (a shard's suite digest): a file by its
// bytes and executable bit, a directory by every entry under it (names sorted, recursively), a link by
// its target text (never followed), a FIFO, socket or device by its kind alone (never opened), a
// missing path as missing. Two checkouts of one commit agree; any byte changed anywhere under the path
// changes it. It reads, never writes, and knows no format.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { O_NOFOLLOW, O_NONBLOCK } from "./_confined-walk.ts";
import { sha256Fd, sha256Hex } from "./hash.ts";

/** `sha256:<hex>` over what `path` holds (see the file's header); throws only on an unreadable entry. */
export function pathDigest(path: string): string {
  return `sha256:${entryDigest(path)}`;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function entryDigest(path: string): string {
  const st = lstatOrNull(path);
  if (st === null) return sha256Hex("missing");
  if (st.isSymbolicLink()) return sha256Hex(`link\0${readlinkSync(path)}`);
  if (st.isDirectory()) {
    const lines = readdirSync(path)
      .sort()
      .map((name) => `${name}\0${entryDigest(join(path, name))}\n`);
    return sha256Hex(`dir\0${lines.join("")}`);
  }
  if (!st.isFile()) return sha256Hex(`other\0${st.mode & constants.S_IFMT}`);
  const fd = openSync(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    // Swapped for something else since the lstat: its kind, as above, never its bytes.
    if (!fstatSync(fd).isFile()) return sha256Hex("changed");
    return sha256Hex(`file\0${(st.mode & 0o111) !== 0 ? "x" : "-"}\0${sha256Fd(fd).sha256}`);
  } finally {
    closeSync(fd);
  }
}
