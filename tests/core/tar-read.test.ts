// The tar reader against archives of every shape /work snapshots come in: our own ustar writer,
// GNU tar's long names (L/K members), PAX records (Docker's and `tar --format=pax`), links and a
// truncated file. Nothing is unpacked; the members and their bytes are what was archived.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { tar } from "../../lib/core/tar.ts";
import { readTar, type TarMember } from "../../lib/core/tar-read.ts";
import { tempDir } from "../support/tmp.ts";

/** Every member of the archive with its data as text (files only). */
function members(path: string): (TarMember & { data?: string })[] {
  const out: (TarMember & { data?: string })[] = [];
  readTar(
    path,
    (m) => out.push({ ...m }),
    (c) => {
      const last = out.at(-1)!;
      last.data = (last.data ?? "") + c.toString("utf8");
    },
  );
  return out;
}

const LONG = `${"d".repeat(120)}/${"f".repeat(130)}.txt`;

describe("readTar", () => {
  test("our own ustar writer: dirs, files (a long name in the prefix field), links", () => {
    using dir = tempDir("tar-read");
    const file = join(dir.path, "a.tar");
    const long = `${"p".repeat(90)}/${"n".repeat(90)}`;
    writeFileSync(
      file,
      tar([
        { kind: "dir", name: "work/" },
        { kind: "file", name: "work/a.txt", data: Buffer.from("hello\n"), mode: 0o755 },
        { kind: "file", name: long, data: Buffer.alloc(0) },
        { kind: "symlink", name: "work/l", target: "a.txt" },
      ]),
    );
    expect(members(file)).toEqual([
      { path: "work/", kind: "dir", size: 0, mode: 0o755 },
      { path: "work/a.txt", kind: "file", size: 6, mode: 0o755, data: "hello\n" },
      { path: long, kind: "file", size: 0, mode: 0o644 },
      { path: "work/l", kind: "symlink", size: 0, link: "a.txt", mode: 0o777 },
    ]);
  });

  test.each(["gnu", "pax"])("GNU tar's %s format: long names and long link targets", async (format) => {
    using dir = tempDir("tar-read");
    const src = join(dir.path, "src");
    mkdirSync(join(src, "d".repeat(120)), { recursive: true });
    writeFileSync(join(src, LONG), "x".repeat(1000));
    symlinkSync(LONG, join(src, "link"));
    const file = join(dir.path, "a.tar");
    const r = await run(["tar", "-C", src, `--format=${format}`, "--sort=name", "-cf", file, "."]);
    expect(r.exitCode).toBe(0);
    const got = members(file).map(({ mode: _mode, ...m }) => m);
    expect(got).toEqual([
      { path: "", kind: "dir", size: 0 },
      { path: `${"d".repeat(120)}/`, kind: "dir", size: 0 },
      { path: LONG, kind: "file", size: 1000, data: "x".repeat(1000) },
      { path: "link", kind: "symlink", size: 0, link: LONG },
    ]);
  });

  test("a truncated archive ends the read at what is whole, without a throw", () => {
    using dir = tempDir("tar-read");
    const file = join(dir.path, "a.tar");
    const whole = tar([
      { kind: "file", name: "a", data: Buffer.from("one") },
      { kind: "file", name: "b", data: Buffer.alloc(2000, 98) },
    ]);
    writeFileSync(file, whole.subarray(0, 512 * 3 + 100));
    expect(members(file).map((m) => ({ path: m.path, data: m.data?.length ?? 0 }))).toEqual([
      { path: "a", data: 3 },
      { path: "b", data: 100 },
    ]);
  });
});
