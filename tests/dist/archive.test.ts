// The release archive writer (scripts/build/archive.ts): what the system tar reads back from it, and
// that the same inputs give the same bytes.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { releaseArchive, tar, unpackedBytes } from "../../scripts/build/archive.ts";
import { tempDir } from "../support/tmp.ts";

const LINKS = ["run-eval", "grade", "gh-shim"];

function fixture(dir: string, body = "#!/bin/sh\necho 9.9.9\n"): string {
  const binary = join(dir, "proctor-bin");
  writeFileSync(binary, body, { mode: 0o755 });
  return binary;
}

describe("releaseArchive", () => {
  test("tar lists the folder, the executable and one link per tool, owned by root, at the given mtime", async () => {
    using dir = tempDir("proctor-archive");
    const file = join(dir.path, "a.tar.gz");
    writeFileSync(
      file,
      releaseArchive({
        dir: "proctor-linux-x64",
        binary: fixture(dir.path),
        links: LINKS,
        mtime: 1700000000,
      }),
    );
    const r = await run(["tar", "--numeric-owner", "--utc", "-tvzf", file], {
      env: { PATH: "/usr/bin:/bin", TZ: "UTC" },
    });
    const rows = r.stdout
      .trim()
      .split("\n")
      .map((l) => l.split(/\s+/).filter((_, i) => i !== 2)); // drop the size column: links have none
    expect({ exitCode: r.exitCode, stderr: r.stderr, rows }).toEqual({
      exitCode: 0,
      stderr: "",
      rows: [
        ["drwxr-xr-x", "0/0", "2023-11-14", "22:13", "proctor-linux-x64/"],
        ["-rwxr-xr-x", "0/0", "2023-11-14", "22:13", "proctor-linux-x64/proctor"],
        ["lrwxrwxrwx", "0/0", "2023-11-14", "22:13", "proctor-linux-x64/gh-shim", "->", "proctor"],
        ["lrwxrwxrwx", "0/0", "2023-11-14", "22:13", "proctor-linux-x64/grade", "->", "proctor"],
        ["lrwxrwxrwx", "0/0", "2023-11-14", "22:13", "proctor-linux-x64/run-eval", "->", "proctor"],
      ],
    });
  });

  test("unpacked, each link runs the binary", async () => {
    using dir = tempDir("proctor-archive");
    const file = join(dir.path, "a.tar.gz");
    writeFileSync(file, releaseArchive({ dir: "p", binary: fixture(dir.path), links: LINKS, mtime: 0 }));
    await run(["tar", "-xzf", file, "-C", dir.path]);
    const r = await run([join(dir.path, "p", "grade")]);
    expect({ exitCode: r.exitCode, stdout: r.stdout }).toEqual({ exitCode: 0, stdout: "9.9.9\n" });
  });

  test("the same inputs give the same bytes, whatever the link order; another mtime does not", () => {
    using dir = tempDir("proctor-archive");
    const binary = fixture(dir.path);
    const make = (mtime: number, links = LINKS) => releaseArchive({ dir: "p", binary, links, mtime });
    expect({
      same: make(5).equals(make(5)),
      linkOrderIrrelevant: make(5).equals(make(5, [...LINKS].reverse())),
      otherMtime: make(5).equals(make(6)),
    }).toEqual({ same: true, linkOrderIrrelevant: true, otherMtime: false });
  });

  test("a file is padded to 512-byte blocks and the archive ends with two empty blocks", () => {
    const out = tar([{ kind: "file", name: "x", data: new Uint8Array(513), mode: 0o644 }], 0);
    expect(out.length).toEqual(512 + 1024 + 1024);
  });

  test("unpackedBytes adds up the entries' sizes", () => {
    const data = (n: number) => new Uint8Array(n);
    const out = tar(
      [
        { kind: "dir", name: "p/" },
        { kind: "file", name: "p/a", data: data(1000), mode: 0o755 },
        { kind: "symlink", name: "p/b", target: "a" },
        { kind: "file", name: "p/c", data: data(512), mode: 0o644 },
      ],
      0,
    );
    expect(unpackedBytes(out)).toEqual(1512);
  });

  test("a name over 100 bytes is refused", () => {
    expect(() => tar([{ kind: "dir", name: `${"d".repeat(101)}/` }], 0)).toThrow(
      `Cannot archive "${"d".repeat(101)}/": name over 100 bytes`,
    );
  });
});
