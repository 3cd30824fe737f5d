// /work as a trial's diff reads it: the same tree from a directory (--local) and from the Docker
// runner's tar snapshot of it (made here as the runner makes its first one); bytes kept for small
// files only; a workspace of neither runner has none.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { dirWorkTree, KEPT_FILE_BYTES, tarWorkTree, workTreeOf } from "../../lib/isolation/work-tree.ts";
import { tempDir } from "../support/tmp.ts";

const hash = (s: string | Buffer) => createHash("sha256").update(s).digest("hex");

function fill(root: string): void {
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  writeFileSync(join(root, "README.md"), "hello\n");
  writeFileSync(join(root, "src", "deep", "run.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(root, "src", "deep", "run.sh"), 0o755);
  writeFileSync(join(root, "big.bin"), Buffer.alloc(KEPT_FILE_BYTES + 1, 7));
  symlinkSync("../README.md", join(root, "src", "up"));
}

const EXPECTED = new Map<string, unknown>([
  [
    "README.md",
    { kind: "file", sha256: hash("hello\n"), size: 6, exec: false, data: Buffer.from("hello\n") },
  ],
  [
    "big.bin",
    {
      kind: "file",
      sha256: hash(Buffer.alloc(KEPT_FILE_BYTES + 1, 7)),
      size: KEPT_FILE_BYTES + 1,
      exec: false,
    },
  ],
  [
    "src/deep/run.sh",
    {
      kind: "file",
      sha256: hash("#!/bin/sh\necho hi\n"),
      size: 18,
      exec: true,
      data: Buffer.from("#!/bin/sh\necho hi\n"),
    },
  ],
  ["src/up", { kind: "link", target: "../README.md" }],
]);

const sorted = (m: Map<string, unknown>) => new Map([...m].sort(([a], [b]) => a.localeCompare(b)));

describe("work trees", () => {
  test("a directory and its tar snapshot read as the same tree", async () => {
    using dir = tempDir("work-tree");
    const src = join(dir.path, "work");
    fill(src);
    const snap = join(dir.path, "work.tar");
    const r = await run(["tar", "-C", src, "--transform", "s,^\\.,work,S", "-cf", snap, "."]);
    expect(r.exitCode).toBe(0);
    expect({ dir: sorted(dirWorkTree(src)), tar: sorted(tarWorkTree(snap)) }).toEqual({
      dir: EXPECTED,
      tar: EXPECTED,
    });
  });

  test("a workspace of either runner, or none", async () => {
    using dir = tempDir("work-tree");
    fill(join(dir.path, "work"));
    const local = { runId: "r", dir: dir.path, work: join(dir.path, "work") };
    expect({
      local: workTreeOf(local)?.size,
      docker: workTreeOf({ runId: "r", dir: join(dir.path, "nothing") }),
    }).toEqual({ local: 4, docker: undefined });
  });
});
