// The diff a transcript shows: unified hunks exact for small cases and, for many seeded edits, a
// patch GNU patch applies to give the agent's file back; the tree diff names every added, deleted and
// modified path, with why a path has no patch (binary, large, a link, a mode change).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import type { WorkEntry, WorkTree } from "../../../lib/isolation/work-tree.ts";
import { diffTrees, unifiedDiff } from "../../../lib/suite/transcript/diff.ts";
import { tempDir } from "../../support/tmp.ts";

describe("unifiedDiff", () => {
  test.each([
    {
      name: "one line changed in the middle, three lines of context",
      a: "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
      b: "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
      want: "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    },
    { name: "a new file", a: "", b: "x\ny\n", want: "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n" },
    { name: "a deleted file", a: "x\n", b: "", want: "--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-x\n" },
    {
      name: "no newline at the end",
      a: "x\ny",
      b: "x\ny\n",
      want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n",
    },
  ])("$name", ({ a, b, want }) => {
    expect(unifiedDiff("f", a, b)).toEqual(want);
  });

  test("GNU patch applies it: 200 seeded edits of a 60-line file come back exactly", async () => {
    using dir = tempDir("diff");
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const base = Array.from({ length: 60 }, (_, i) => `line ${i % 7}`);
    const failures: string[] = [];
    for (let k = 0; k < 200; k++) {
      const lines = [...base];
      for (let e = 0; e < 1 + rand(6); e++) {
        const at = rand(lines.length + 1);
        const op = rand(3);
        if (op === 0) lines.splice(at, 1);
        else if (op === 1) lines.splice(at, 0, `new ${k}-${e}`);
        else lines[Math.min(at, lines.length - 1)] = `changed ${k}-${e}`;
      }
      const a = `${base.join("\n")}\n`;
      const b = `${lines.join("\n")}\n`;
      if (a === b) continue;
      const file = join(dir.path, "f");
      writeFileSync(file, a);
      writeFileSync(join(dir.path, "p"), unifiedDiff("f", a, b));
      const r = await run(["patch", "-s", "-F", "0", file, join(dir.path, "p")]);
      if (r.exitCode !== 0 || readFileSync(file, "utf8") !== b)
        failures.push(`edit ${k}: ${r.stdout}${r.stderr}`);
    }
    expect(failures).toEqual([]);
  });
});

describe("diffTrees", () => {
  const file = (text: string, exec = false, keep = true): WorkEntry => ({
    kind: "file",
    sha256: `h(${text})`,
    size: text.length,
    exec,
    ...(keep ? { data: Buffer.from(text) } : {}),
  });
  test("every change named, with its patch or why there is none", () => {
    const before: WorkTree = new Map<string, WorkEntry>([
      ["same.txt", file("same\n")],
      ["edit.txt", file("a\n")],
      ["gone.txt", file("bye\n")],
      ["run.sh", file("#!/bin/sh\n")],
      ["blob.bin", { kind: "file", sha256: "h1", size: 3, exec: false, data: Buffer.from([0, 1, 2]) }],
      ["huge.log", file("old", false, false)],
      ["link", { kind: "link", target: "same.txt" }],
    ]);
    const after: WorkTree = new Map<string, WorkEntry>([
      ["same.txt", file("same\n")],
      ["edit.txt", file("b\n")],
      ["new.txt", file("hi\n")],
      ["run.sh", file("#!/bin/sh\n", true)],
      ["blob.bin", { kind: "file", sha256: "h2", size: 3, exec: false, data: Buffer.from([0, 1, 3]) }],
      ["huge.log", file("new", false, false)],
      ["link", { kind: "link", target: "edit.txt" }],
    ]);
    expect(diffTrees(before, after)).toEqual({
      files: [
        { path: "blob.bin", change: "modified", note: "binary" },
        {
          path: "edit.txt",
          change: "modified",
          patch: "--- a/edit.txt\n+++ b/edit.txt\n@@ -1,1 +1,1 @@\n-a\n+b\n",
        },
        {
          path: "gone.txt",
          change: "deleted",
          patch: "--- a/gone.txt\n+++ b/gone.txt\n@@ -1,1 +0,0 @@\n-bye\n",
        },
        { path: "huge.log", change: "modified", note: "large: bytes not kept" },
        { path: "link", change: "modified", note: "was a link to same.txt; is a link to edit.txt" },
        { path: "new.txt", change: "added", patch: "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hi\n" },
        { path: "run.sh", change: "modified", note: "made executable" },
      ],
    });
  });
});
