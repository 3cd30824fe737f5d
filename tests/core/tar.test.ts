// The one ustar writer (lib/core/tar.ts): the bytes it wrote before it was shared (pinned digests of
// the release archive's and the container files' streams), what the system tar reads back, padding,
// the unpacked size, and the paths it cannot store.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../lib/core/hash.ts";
import { type TarEntry, tar, unpackedBytes } from "../../lib/core/tar.ts";
import { tarListing } from "../support/tar-list.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const LONG = `tmp/${"d".repeat(120)}/${"n".repeat(90)}.json`;

describe("tar", () => {
  test.each([
    {
      name: "a release archive's entries at an mtime",
      entries: [
        { kind: "dir", name: "p/" },
        { kind: "file", name: "p/proctor", data: new Uint8Array(1000).fill(7), mode: 0o755 },
        { kind: "symlink", name: "p/grade", target: "proctor" },
      ] as TarEntry[],
      stamp: { mtime: 1700000000 },
      sha256: "f32ed180d54a80c219251cd2ad6d4328043a50237d423b01fccf56068d84c42c",
    },
    {
      name: "container settings owned by the exec user",
      entries: [
        { kind: "dir", name: "tmp/home/" },
        { kind: "dir", name: "tmp/home/.claude/" },
        { kind: "file", name: "tmp/home/.claude/settings.json", data: Buffer.from('{"a":1}\n') },
        { kind: "dir", name: "etc/claude-code/" },
        { kind: "file", name: "etc/claude-code/x.json", data: Buffer.from("é".repeat(600)), mode: 0o600 },
      ] as TarEntry[],
      stamp: { uid: 1000, gid: 1000 },
      sha256: "375e3a1f0e4af827a98937889fec7be6010fd34fcde810337a122bf2e9c6a74b",
    },
    {
      name: "a path over 100 bytes split into prefix and name",
      entries: [
        { kind: "dir", name: `tmp/${"d".repeat(120)}/` },
        { kind: "file", name: LONG, data: Buffer.from("x") },
      ] as TarEntry[],
      stamp: {},
      sha256: "4fbafc692927b96fe8b337353ee7dc6e9a74d9fda2f21a9dd955415dce21f474",
    },
  ])("$name: the same bytes as before", ({ entries, stamp, sha256 }) => {
    expect(sha256Hex(tar(entries, stamp))).toEqual(sha256);
  });

  test("the system tar lists modes, owners, mtime, links and long paths", async () => {
    using dir = tempDir("proctor-tar");
    const file = join(dir.path, "a.tar");
    writeFileSync(
      file,
      tar(
        [
          { kind: "dir", name: "p/" },
          { kind: "file", name: "p/a", data: Buffer.from("hi"), mode: 0o755 },
          { kind: "symlink", name: "p/b", target: "a" },
          { kind: "file", name: LONG, data: Buffer.from("x") },
        ],
        { uid: 7, gid: 8, mtime: 1700000000 },
      ),
    );
    expect(await tarListing(file)).toEqual({
      exitCode: 0,
      stderr: "",
      rows: [
        ["drwxr-xr-x", "7/8", "2023-11-14", "22:13", "p/"],
        ["-rwxr-xr-x", "7/8", "2023-11-14", "22:13", "p/a"],
        ["lrwxrwxrwx", "7/8", "2023-11-14", "22:13", "p/b", "->", "a"],
        ["-rw-r--r--", "7/8", "2023-11-14", "22:13", LONG],
      ],
    });
  });

  test("a file is padded to 512-byte blocks and the archive ends with two empty blocks", () => {
    const out = tar([{ kind: "file", name: "x", data: new Uint8Array(513), mode: 0o644 }]);
    expect(out.length).toEqual(512 + 1024 + 1024);
  });

  test("unpackedBytes adds up the entries' sizes", () => {
    const data = (n: number) => new Uint8Array(n);
    const out = tar([
      { kind: "dir", name: "p/" },
      { kind: "file", name: "p/a", data: data(1000), mode: 0o755 },
      { kind: "symlink", name: "p/b", target: "a" },
      { kind: "file", name: "p/c", data: data(512), mode: 0o644 },
    ]);
    expect(unpackedBytes(out)).toEqual(1512);
  });

  test.each([
    {
      name: "a name over 100 bytes with no place to split",
      entry: { kind: "file", name: "f".repeat(101), data: new Uint8Array(0) } as TarEntry,
      msg: `Cannot put "${"f".repeat(101)}" in a tar: path too long`,
    },
    {
      name: "a link target over 100 bytes",
      entry: { kind: "symlink", name: "l", target: "t".repeat(101) } as TarEntry,
      msg: `Cannot put "l" in a tar: link target over 100 bytes`,
    },
  ])("refuses $name", ({ entry, msg }) => {
    expect(() => tar([entry])).toThrow(msg);
  });
});

test("lib/core/tar.ts is the only ustar writer in lib/ and scripts/", () => {
  const writers: string[] = [];
  for (const top of ["lib", "scripts"])
    for (const rel of readdirSync(join(REPO_ROOT, top), { recursive: true, encoding: "utf8" }))
      if (rel.endsWith(".ts") && readFileSync(join(REPO_ROOT, top, rel), "utf8").includes('"ustar'))
        writers.push(`${top}/${rel}`);
  // tar-read.ts names the magic to read it: the one reader, not a writer.
  expect(writers.sort()).toEqual(["lib/core/tar-read.ts", "lib/core/tar.ts"]);
});
