import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfinedPathError, openDirConfined, readConfined, readRegular } from "../../lib/core/confined.ts";
import { mkdirConfined, writeConfined, writeInDir } from "../../lib/core/confined-write.ts";

const base = mkdtempSync(join(tmpdir(), "confined-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = join(base, "root");
const outside = join(base, "outside");
mkdirSync(join(root, "a", "b"), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, "a", "b", "f.txt"), "inside");
writeFileSync(join(outside, "secret.txt"), "SECRET");
symlinkSync(outside, join(root, "a", "out")); // a directory link in the middle
symlinkSync(join(outside, "secret.txt"), join(root, "a", "leaf")); // a file link at the end
execFileSync("mkfifo", [join(root, "a", "fifo")]);

function reason(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (error) {
    if (error instanceof ConfinedPathError) return error.reason;
    throw error;
  }
}

describe("readConfined", () => {
  test.each([
    { name: "a regular file", rel: "a/b/f.txt", want: "ok" },
    { name: "a link in the middle", rel: "a/out/secret.txt", want: "link" },
    { name: "a link at the end", rel: "a/leaf", want: "link" },
    { name: "a FIFO (never blocks)", rel: "a/fifo", want: "not-regular" },
    { name: "a directory", rel: "a/b", want: "not-regular" },
    { name: "a missing file", rel: "a/nope", want: "missing" },
    { name: "a file as a directory", rel: "a/b/f.txt/x", want: "not-directory" },
    { name: "climbing out", rel: "../outside/secret.txt", want: "outside" },
    { name: "an absolute path", rel: "/etc/passwd", want: "outside" },
  ])("$name -> $want", ({ rel, want }) => {
    expect(reason(() => readConfined(root, rel))).toBe(want);
  });

  test("reads content and enforces the cap", () => {
    expect(readConfined(root, "a/b/f.txt").toString()).toBe("inside");
    expect(reason(() => readConfined(root, "a/b/f.txt", { maxBytes: 3 }))).toBe("too-large");
  });

  test("readRegular refuses a FIFO and a final link", () => {
    expect(reason(() => readRegular(join(root, "a", "fifo")))).toBe("not-regular");
    expect(reason(() => readRegular(join(root, "a", "leaf")))).toBe("link");
    expect(readRegular(join(root, "a", "b", "f.txt")).toString()).toBe("inside");
  });
});

describe("writeConfined / mkdirConfined", () => {
  test("never writes through a directory link", () => {
    expect(reason(() => writeConfined(root, "a/out/new.txt", "x"))).toBe("link");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });
  test("replaces a final link instead of writing through it", () => {
    writeConfined(root, "a/leaf", "mine");
    expect(lstatSync(join(root, "a", "leaf")).isFile()).toBe(true);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
  });
  test("exclusive refuses an existing entry, dangling links included", () => {
    symlinkSync(join(outside, "nothing-yet"), join(root, "dangling"));
    expect(reason(() => writeConfined(root, "dangling", "x", { exclusive: true }))).toBe("exists");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
    expect(reason(() => writeConfined(root, "a/b/f.txt", "x", { exclusive: true }))).toBe("exists");
    writeConfined(root, "a/b/g.txt", "g", { exclusive: true, mode: 0o600 });
    expect(readFileSync(join(root, "a", "b", "g.txt"), "utf8")).toBe("g");
    expect(lstatSync(join(root, "a", "b", "g.txt")).mode & 0o777).toBe(0o600);
  });
  test("mkdirs makes parents and refuses a link on the way", () => {
    writeConfined(root, "n/m/h.txt", "h", { mkdirs: true });
    expect(readFileSync(join(root, "n", "m", "h.txt"), "utf8")).toBe("h");
    expect(reason(() => mkdirConfined(root, "a/out/deeper"))).toBe("link");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });
});

describe("writeInDir (an open directory, no walk per file)", () => {
  const dirName = "many";
  mkdirSync(join(root, dirName));
  symlinkSync(join(outside, "secret.txt"), join(root, dirName, "taken-link"));
  test.each([
    ["a new file", "new.json", { exclusive: true }, "ok", "new"],
    ["exclusive over a final link", "taken-link", { exclusive: true }, "exists", undefined],
    ["a name with a slash", "sub/x.json", { exclusive: true }, "not-regular", undefined],
    ["a dot-dot name", "..", { exclusive: true }, "outside", undefined],
    ["replacing a final link", "taken-link", {}, "ok", "new"],
  ] as const)("%s", (_what, name, opts, want, content) => {
    const dir = openDirConfined(root, dirName);
    try {
      expect(reason(() => writeInDir(dir, name, "new", opts))).toBe(want);
    } finally {
      closeSync(dir.fd);
    }
    if (content !== undefined) expect(readFileSync(join(root, dirName, name), "utf8")).toBe(content);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
  });
});
