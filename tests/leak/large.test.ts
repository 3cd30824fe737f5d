// Size is no limit: a generated 64 MiB file is streamed, and a canary at the very end, or straddling
// the default read boundary, is still found.
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CHUNK_BYTES, findLeaks, promptShingles } from "../../lib/leak/index.ts";
import { Rng } from "../../lib/stats/index.ts";
import { tempDir } from "../support/tmp.ts";

const CANARY = "CANARY-5d1e8b7a0c2f4936";
const MIB = 1 << 20;

const VOCAB = "the agent opens a pull request for each issue and runs its tests before it pushes".split(" ");

/**
 * Seeded words separated by spaces and newlines: UTF-8 text, so the shingle path runs too. Real
 * words, not random letters: random letters make a base64-looking run every few dozen bytes, which
 * is the bench's business (tests/bench/leak.ts), not this test's.
 */
function seededText(bytes: number, seed: number): Buffer {
  const rng = new Rng(seed);
  const buf = Buffer.alloc(bytes);
  let at = 0;
  while (at < bytes) {
    at += buf.write(VOCAB[rng.nextUint32() % VOCAB.length]!, at, "latin1");
    if (at < bytes) buf[at++] = rng.nextUint32() % 8 === 0 ? 10 : 32;
  }
  return buf;
}

/** Writes `block` `times` times, then `tail`; returns the path. */
function writeLarge(path: string, block: Buffer, times: number, tail: Buffer): string {
  const fd = openSync(path, "w");
  try {
    for (let i = 0; i < times; i++) writeSync(fd, block);
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
  return path;
}

describe("large files", () => {
  // Memory is a benchmark's business, not a test's (RSS moves with the GC): this proves the scan
  // reaches the end of a large file; chunked reading itself is proved at every chunk size in leak.test.ts.
  test("64 MiB with the canary at the end: found", async () => {
    using dir = tempDir("proctor-leak-large");
    const block = seededText(4 * MIB, 42);
    const path = writeLarge(join(dir.path, "big.txt"), block, 16, Buffer.from(` ${CANARY}\n`));
    const spec = {
      canary: CANARY,
      promptShingles: promptShingles("one two three four five six seven eight nine ten"),
      criteria: [{ id: "c1", text: "alpha beta gamma delta epsilon zeta eta theta iota" }],
    };
    const report = await findLeaks(spec, [{ path: "big.txt", abs: path }]);
    expect(report).toEqual({ offenders: [{ path: "big.txt", kind: "canary" }], skipped: [] });
  });

  test("a canary straddling the default read boundary is found", async () => {
    using dir = tempDir("proctor-leak-large");
    const data = seededText(2 * CHUNK_BYTES, 7);
    data.write(CANARY, CHUNK_BYTES - 9);
    const path = writeLarge(join(dir.path, "seam.txt"), data, 1, Buffer.alloc(0));
    const clean = writeLarge(join(dir.path, "clean.txt"), seededText(2 * CHUNK_BYTES, 7), 1, Buffer.alloc(0));
    const report = await findLeaks({ canary: CANARY }, [
      { path: "seam.txt", abs: path },
      { path: "clean.txt", abs: clean },
    ]);
    expect(report).toEqual({ offenders: [{ path: "seam.txt", kind: "canary" }], skipped: [] });
  });
});
