// Issue 23: /work carried between phases keeps its holes and is capped. SparseCarry turns a tar whose
// sparse files arrive as zeros (what `docker cp NAME:/work -` streams) into a snapshot with GNU sparse
// members: GNU tar extracts each file byte for byte, its holes kept; files without holes pass as they
// are; past the cap it stops. Fed in odd-sized chunks, as a pipe delivers them. (The engine end to end
// is sparse-docker.test.ts.)
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { NOT_GNU_TAR, phaseCommand, UNPACK_MARK } from "../../../lib/isolation/docker/_attach.ts";
import { CarryError, HOLE, SparseCarry } from "../../../lib/isolation/docker/_sparse.ts";
import { tarScan } from "../../../lib/isolation/docker/_tar.ts";
import { tempDir } from "../../support/tmp.ts";

const dir = tempDir("sparse-carry");
afterAll(() => dir[Symbol.dispose]());
const MiB = 1024 * 1024;

/** Writes `data` at each offset of `at` into `path` (created `size` bytes long, holes elsewhere). */
function sparseFile(path: string, size: number, at: Record<number, string>): void {
  writeFileSync(path, "");
  truncateSync(path, size);
  const fd = openSync(path, "r+");
  for (const [offset, data] of Object.entries(at)) writeSync(fd, data, Number(offset));
}

/** The tree's files: size, sha256 and whether they take much less disk than their size. */
function files(root: string, names: string[]) {
  return Object.fromEntries(
    names.map((n) => {
      const p = join(root, n);
      const st = statSync(p);
      const sha = st.size > 64 * MiB ? "large" : createHash("sha256").update(readFileSync(p)).digest("hex");
      return [n, { size: st.size, sha, sparse: st.blocks * 512 < st.size / 2 }];
    }),
  );
}

/**
 * `src` as a plain GNU tar (holes streamed as zeros, as the engine sends them) through SparseCarry, each
 * piece the pipe gives cut into `chunk`-byte pushes; the snapshot's size.
 */
async function carry(src: string, snap: string, chunk: number, cap = 64 * MiB): Promise<number> {
  const c = new SparseCarry(snap, `${snap}.spill`, cap);
  const tar = spawn("tar", ["-C", src, "-cf", "-", "."], { stdio: ["ignore", "pipe", "ignore"] });
  let failed: unknown;
  tar.stdout.on("data", (b: Buffer) => {
    try {
      for (let at = 0; at < b.length && failed === undefined; at += chunk) c.push(b.subarray(at, at + chunk));
    } catch (error) {
      failed = error;
      tar.kill();
    }
  });
  await new Promise((done) => tar.on("close", done));
  try {
    if (failed !== undefined) throw failed;
    return c.finish();
  } finally {
    c.close();
  }
}

const LONG = `${"d".repeat(60)}/${"e".repeat(60)}/${"f".repeat(40)}.bin`;
const ROWS: {
  name: string;
  make: (root: string) => string[];
  chunk: number;
  maxSnapshot: number;
  sparse: boolean;
}[] = [
  {
    name: "a 512 MiB sparse file with a byte in it",
    make: (r) => {
      sparseFile(join(r, "big"), 512 * MiB, { [1000 * HOLE + 7]: "x" });
      return ["big"];
    },
    chunk: 65536,
    maxSnapshot: 64 * 1024,
    sparse: true,
  },
  {
    name: "30 data runs between holes (the map goes on in extension blocks)",
    make: (r) => {
      const at: Record<number, string> = {};
      for (let i = 0; i < 30; i++) at[i * 3 * HOLE + (i % 2) * 100] = `run ${i} `.repeat(50);
      sparseFile(join(r, "runs"), 100 * HOLE + 5, at);
      return ["runs"];
    },
    chunk: 777,
    maxSnapshot: 200 * 1024,
    sparse: true,
  },
  {
    name: "a sparse file under a long path, ending in a hole",
    make: (r) => {
      mkdirSync(join(r, LONG, ".."), { recursive: true });
      sparseFile(join(r, LONG), 8 * MiB, { 0: "head" });
      return [LONG];
    },
    chunk: 4093,
    maxSnapshot: 64 * 1024,
    sparse: true,
  },
  {
    name: "dense and small files beside them",
    make: (r) => {
      writeFileSync(join(r, "dense"), Buffer.alloc(3 * HOLE + 11, 7));
      writeFileSync(join(r, "small"), "hello\n");
      writeFileSync(join(r, "zeros"), Buffer.alloc(100));
      return ["dense", "small", "zeros"];
    },
    chunk: 511,
    maxSnapshot: 64 * 1024,
    sparse: false,
  },
];

describe("SparseCarry", () => {
  for (const [i, row] of ROWS.entries())
    test(row.name, async () => {
      const src = join(dir.path, `src-${i}`);
      const out = join(dir.path, `out-${i}`);
      mkdirSync(src, { recursive: true });
      mkdirSync(out, { recursive: true });
      const names = row.make(src);
      const snap = join(dir.path, `snap-${i}.tar`);
      const bytes = await carry(src, snap, row.chunk);
      const x = spawnSync("tar", ["-C", out, "-xf", snap]);
      const want = files(src, names);
      expect({
        small: bytes <= row.maxSnapshot && statSync(snap).size === bytes,
        sparseMembers: tarScan(snap).sparse,
        untar: x.status,
        files: files(out, names),
      }).toEqual({
        small: true,
        sparseMembers: row.sparse,
        untar: 0,
        files: Object.fromEntries(Object.entries(want).map(([n, f]) => [n, { ...f, sparse: row.sparse }])),
      });
    });

  test("past the cap it stops with CarryError", async () => {
    const src = join(dir.path, "src-cap");
    mkdirSync(src);
    writeFileSync(
      join(src, "noise"),
      createHash("sha512").update("x").digest().toString("hex").repeat(30_000),
    );
    let error: unknown;
    try {
      await carry(src, join(dir.path, "snap-cap.tar"), 65536, MiB);
    } catch (e) {
      error = e;
    }
    expect({ carry: error instanceof CarryError, message: (error as Error).message }).toEqual({
      carry: true,
      message: `over the cap of ${MiB} bytes (holes not counted)`,
    });
  });

  test("a stream that is no tar is refused", () => {
    const c = new SparseCarry(join(dir.path, "snap-bad.tar"), join(dir.path, "bad.spill"), MiB);
    let message = "";
    try {
      c.push(Buffer.alloc(512, 1));
    } catch (e) {
      message = (e as Error).message;
    } finally {
      c.close();
    }
    expect(message).toEqual("not a tar: a header's checksum is wrong");
  });
});

describe("an image whose tar is not GNU tar", () => {
  // Another tar could skip a sparse member without a word: the phase's wrapper gives up (exit 125 and
  // the unpack mark), and the runner has the engine copy /work in. Run here with a stand-in tar first
  // on PATH: the wrapper stops before it unpacks anything.
  const rows = [
    { name: "a snapshot with sparse members: refused, the engine copies it in", sparse: true, status: 125 },
    { name: "a snapshot without: unpacked as before", sparse: false, status: 0 },
  ];
  for (const row of rows)
    test(row.name, () => {
      const bin = join(dir.path, `bin-${row.sparse}`);
      mkdirSync(bin);
      writeFileSync(
        join(bin, "tar"),
        '#!/bin/sh\n[ "$1" = --version ] && echo "tar (busybox) 1.36"\ncat >/dev/null\n',
        {
          mode: 0o755,
        },
      );
      const [sh, ...args] = phaseCommand(0, ["true"], false, row.sparse);
      const r = spawnSync(sh!, args, { env: { PATH: `${bin}:${process.env.PATH}` }, input: "" });
      const lines = r.stderr.toString().trimEnd().split("\n");
      expect({ status: r.status, last: lines.slice(-2) }).toEqual(
        row.sparse
          ? { status: 125, last: [NOT_GNU_TAR, UNPACK_MARK] }
          : { status: 0, last: ["proctor: the phase command starts"] },
      );
    });
});
