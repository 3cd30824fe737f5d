// --keep in-process (lib/hermetic/keep.ts): cases named `grp/case-a`, `grp/case-b` and `grp` keep three
// copies that never nest or remove each other; a sparse OUT file stays sparse (or is skipped
// with one line when over the cap); a FIFO is skipped with one line; a link stays a link.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { MAX_FILE_BYTES } from "../../lib/grade/out.ts";
import { type KeptRun, keepRun } from "../../lib/hermetic/keep.ts";
import { tempDir } from "../support/tmp.ts";

const GiB = 2 ** 30;

/** A finished case's work dir under `root`: OUT with `files`, a call log, the logs. */
function work(root: string, id: string, name: string, files: Record<string, string> = {}): KeptRun {
  const workRoot = join(root, `work-${id}`);
  const out = join(workRoot, "out");
  mkdirSync(out, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(out, f), text);
  writeFileSync(join(workRoot, "gh-calls.jsonl"), `{"argv": ["${id}"]}\n`);
  return {
    name,
    caseDir: join(root, "cases", id),
    out,
    workRoot,
    callLog: "gh-calls.jsonl",
    logs: { stdout: `${id} out\n`, stderr: "", run: `${id} run\n` },
  };
}

/** Every regular file under `dir` with its text, by relative path. */
function tree(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const n of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${n}` : n;
      if (lstatSync(join(dir, r)).isDirectory()) walk(r);
      else found[r] = readFileSync(join(dir, r), "utf8");
    }
  };
  walk("");
  return found;
}

describe("kept paths never collide", () => {
  test("grp/case-a, grp/case-b and grp: three flat copies, none inside or over another", () => {
    using dir = tempDir("keep-triple");
    const keep = join(dir.path, "keep");
    const runs = [
      work(dir.path, "a", "grp/case-a", { "who.txt": "a" }),
      work(dir.path, "b", "grp/case-b", { "who.txt": "b" }),
      work(dir.path, "g", "grp", { "who.txt": "g" }),
    ];
    const kept = runs.map((r) => keepRun(keep, r, MAX_FILE_BYTES));
    const copy = (id: string) => ({
      "gh-calls.jsonl": `{"argv": ["${id}"]}\n`,
      "out/who.txt": id,
      "run.log": `${id} run\n`,
      "subject.stderr": "",
      "subject.stdout": `${id} out\n`,
    });
    expect({ kept, tree: tree(keep) }).toEqual({
      kept: ["grp%2Fcase-a", "grp%2Fcase-b", "grp"].map((n) => ({ dir: join(keep, n), notes: [] })),
      tree: Object.fromEntries(
        [
          ["grp", "g"],
          ["grp%2Fcase-a", "a"],
          ["grp%2Fcase-b", "b"],
        ].flatMap(([n, id]) => Object.entries(copy(id!)).map(([f, t]) => [`${n}/${f}`, t])),
      ),
    });
  });

  test("two cases of one run with the same name: the second gets ~2; a case kept again reuses its own", () => {
    using dir = tempDir("keep-dup");
    const keep = join(dir.path, "keep");
    const one = work(dir.path, "one", "same");
    const two = work(dir.path, "two", "same");
    expect(
      [keepRun(keep, one, 100), keepRun(keep, two, 100), keepRun(keep, one, 100)].map((k) => k.dir),
    ).toEqual([join(keep, "same"), join(keep, "same~2"), join(keep, "same")]);
  });
});

describe("what OUT holds", () => {
  test("a sparse 256 MiB file stays sparse under a raised cap; zero blocks become holes", () => {
    using dir = tempDir("keep-sparse");
    const keep = join(dir.path, "keep");
    const run = work(dir.path, "s", "sparse", { "data.txt": "data\n" });
    writeFileSync(join(run.out!, "big.bin"), "head");
    truncateSync(join(run.out!, "big.bin"), GiB / 4);
    writeFileSync(join(run.out!, "zeros.bin"), Buffer.alloc(4 << 20));
    const kept = keepRun(keep, run, GiB);
    const big = statSync(join(keep, "sparse", "out", "big.bin"));
    const zeros = statSync(join(keep, "sparse", "out", "zeros.bin"));
    expect({
      kept,
      big: { size: big.size, allocatedUnder1MiB: big.blocks * 512 < 2 ** 20 },
      zeros: { size: zeros.size, allocated: zeros.blocks * 512 },
      head: readFileSync(join(keep, "sparse", "out", "big.bin")).subarray(0, 5),
      data: readFileSync(join(keep, "sparse", "out", "data.txt"), "utf8"),
    }).toEqual({
      kept: { dir: join(keep, "sparse"), notes: [] },
      big: { size: GiB / 4, allocatedUnder1MiB: true },
      zeros: { size: 4 << 20, allocated: 0 },
      head: Buffer.from("head\0"),
      data: "data\n",
    });
  });

  test("over the cap, a FIFO: skipped with one line each; a link kept as a link; the case's copy stands", () => {
    using dir = tempDir("keep-skip");
    const keep = join(dir.path, "keep");
    const run = work(dir.path, "k", "skips", { "small.txt": "ok" });
    writeFileSync(join(run.out!, "big.bin"), "");
    truncateSync(join(run.out!, "big.bin"), 2 * GiB);
    execFileSync("mkfifo", [join(run.out!, "pipe")]);
    symlinkSync("/etc/passwd", join(run.out!, "passwd"));
    const kept = keepRun(keep, run, MAX_FILE_BYTES);
    expect({
      kept,
      entries: readdirSync(join(keep, "skips", "out")).sort(),
      link: readlinkSync(join(keep, "skips", "out", "passwd")),
    }).toEqual({
      kept: {
        dir: join(keep, "skips"),
        notes: [
          `⚠ --keep: not kept: OUT/big.bin: larger than the size cap (${2 * GiB} bytes, cap ${MAX_FILE_BYTES}); --max-file-bytes raises the cap`,
          "⚠ --keep: not kept: OUT/pipe: not a regular file",
        ],
      },
      entries: ["passwd", "small.txt"],
      link: "/etc/passwd",
    });
  });

  test("a call log swapped for a FIFO is kept empty, with one line", () => {
    using dir = tempDir("keep-log");
    const keep = join(dir.path, "keep");
    const run = work(dir.path, "l", "log");
    execFileSync("rm", [join(run.workRoot, "gh-calls.jsonl")]);
    execFileSync("mkfifo", [join(run.workRoot, "gh-calls.jsonl")]);
    const kept = keepRun(keep, run, MAX_FILE_BYTES);
    expect({ kept, log: readFileSync(join(keep, "log", "gh-calls.jsonl"), "utf8") }).toEqual({
      kept: { dir: join(keep, "log"), notes: ["⚠ --keep: not kept: gh-calls.jsonl: not a regular file"] },
      log: "",
    });
  });
});
