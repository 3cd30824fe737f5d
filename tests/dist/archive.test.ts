// The release archive (scripts/build/archive.ts): what the system tar reads back from it, and that the
// same inputs give the same bytes (the ustar writer itself: tests/core/tar.test.ts).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { releaseArchive } from "../../scripts/build/archive.ts";
import { tarListing } from "../support/tar-list.ts";
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
    expect(await tarListing(file, true)).toEqual({
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
});
