import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  fastHash,
  fnv1a64,
  isMain,
  readFileRange,
  runtimeName,
  statFile,
  statFileSync,
} from "../../lib/core/runtime.ts";
import { tempDir } from "../support/tmp.ts";

describe("runtime seam", () => {
  test("knows it runs on Bun here", () => {
    expect(runtimeName()).toBe("bun");
  });
  test.each([
    { name: "runtime says main", meta: { url: "file:///x.ts", main: true }, expected: true },
    { name: "runtime says not main", meta: { url: "file:///x.ts", main: false }, expected: false },
    {
      name: "no import.meta.main (Node 20): compares with argv[1]",
      meta: { url: "file:///nowhere/x.ts" },
      expected: false,
    },
  ])("isMain: $name", ({ meta, expected }) => {
    expect(isMain(meta as unknown as ImportMeta)).toBe(expected);
  });
  test("fastHash is stable, 16 hex digits, and content-sensitive", () => {
    const a = fastHash("cassette");
    expect({
      same: fastHash("cassette") === a,
      shape: /^[0-9a-f]{16}$/.test(a),
      differs: fastHash("cassettf") !== a,
    }).toEqual({
      same: true,
      shape: true,
      differs: true,
    });
  });
});

describe("fnv1a64 (fastHash off Bun)", () => {
  // Reference values of 64-bit FNV-1a (offset basis cbf29ce484222325, prime 100000001b3).
  test.each([
    { input: "", expected: "cbf29ce484222325" },
    { input: "a", expected: "af63dc4c8601ec8c" },
    { input: "foobar", expected: "85944171f73967e8" },
    { input: "hello world ü", expected: "3ded5cb4277fd4ea" },
  ])("$input", ({ input, expected }) => {
    expect(fnv1a64(new TextEncoder().encode(input))).toBe(expected);
  });
});

describe("statFile and readFileRange (no node:fs under Bun)", () => {
  test("a file's stat, ranges of it, and what is missing", async () => {
    using dir = tempDir("runtime-files");
    const file = join(dir.path, "f.txt");
    writeFileSync(file, "0123456789");
    const st = await statFile(file);
    const text = async (start: number, end?: number) =>
      new TextDecoder().decode(await readFileRange(file, start, end));
    expect({
      file: { size: st?.size, isFile: st?.isFile, isDirectory: st?.isDirectory, uid: st?.uid },
      dir: (await statFile(dir.path))?.isDirectory,
      sameSync: JSON.stringify(statFileSync(file)) === JSON.stringify(st),
      missing: await statFile(join(dir.path, "nope")),
      middle: await text(2, 5),
      past: await text(8, 20),
      rest: await text(3),
      unreadable: await readFileRange(join(dir.path, "nope"), 0, 1).then(
        () => "read",
        (e: NodeJS.ErrnoException) => e.code,
      ),
    }).toEqual({
      file: { size: 10, isFile: true, isDirectory: false, uid: process.getuid?.() },
      dir: true,
      sameSync: true,
      missing: null,
      middle: "234",
      past: "89",
      rest: "3456789",
      unreadable: "ENOENT",
    });
  });
});
