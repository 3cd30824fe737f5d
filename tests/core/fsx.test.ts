import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  executablesOnPath,
  readAt,
  realpathOr,
  resolveInside,
  which,
  withFileLock,
  writeFileAtomic,
} from "../../lib/core/fsx.ts";
import { tempDir } from "../support/tmp.ts";

describe("writeFileAtomic", () => {
  test("writes the content and leaves no temp file behind", () => {
    using dir = tempDir();
    const path = join(dir.path, "a.json");
    writeFileAtomic(path, '{"x":1}\n');
    expect({ content: readFileSync(path, "utf8"), files: readdirSync(dir.path) }).toEqual({
      content: '{"x":1}\n',
      files: ["a.json"],
    });
  });

  test("preserves the mode of an existing file", () => {
    using dir = tempDir();
    const path = join(dir.path, "a.json");
    writeFileSync(path, "old");
    chmodSync(path, 0o640);
    writeFileAtomic(path, "new");
    expect({ content: readFileSync(path, "utf8"), mode: statSync(path).mode & 0o777 }).toEqual({
      content: "new",
      mode: 0o640,
    });
  });

  test("a failed write leaves the old file intact and no temp file", () => {
    using dir = tempDir();
    const path = join(dir.path, "missing-dir", "a.json");
    expect(() => writeFileAtomic(path, "x")).toThrow();
    expect(readdirSync(dir.path)).toEqual([]);
  });
});

describe("resolveInside", () => {
  const cases = [
    { name: "plain file", rel: "a/b.txt", expected: { ok: true } },
    { name: "empty", rel: "", expected: { ok: false, reason: "empty" } },
    { name: "absolute", rel: "/etc/passwd", expected: { ok: false, reason: "absolute" } },
    { name: "dot-dot", rel: "../x", expected: { ok: false, reason: "traversal" } },
    { name: "inner dot-dot", rel: "a/../../x", expected: { ok: false, reason: "traversal" } },
    { name: "symlink on the way", rel: "link/x", expected: { ok: false, reason: "symlink" } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using dir = tempDir();
      mkdirSync(join(dir.path, "a"));
      symlinkSync("/tmp", join(dir.path, "link"));
      const got = resolveInside(dir.path, c.rel, { noLinks: true });
      const shape: { ok: boolean; reason?: string } = got.ok
        ? { ok: true }
        : { ok: false, reason: got.reason };
      expect(shape).toEqual(c.expected);
      if (got.ok) expect(got.path).toBe(join(dir.path, c.rel));
    });
  }
});

describe("withFileLock", () => {
  test("serialises concurrent critical sections in one process", async () => {
    using dir = tempDir();
    const lock = join(dir.path, "l.lock");
    const order: string[] = [];
    await Promise.all(
      [1, 2, 3].map((i) =>
        withFileLock(lock, async () => {
          order.push(`in${i}`);
          await Promise.resolve();
          order.push(`out${i}`);
        }),
      ),
    );
    // Every "in" is followed directly by its own "out": no interleaving.
    for (let k = 0; k < order.length; k += 2) expect(order[k + 1]).toBe(order[k]!.replace("in", "out"));
  });
});

describe("which / executablesOnPath", () => {
  test("finds executables in PATH order, skipping empty entries and non-executable files", () => {
    using dir = tempDir();
    for (const [sub, mode] of [
      ["a", 0o644],
      ["b", 0o755],
      ["c", 0o755],
    ] as const) {
      mkdirSync(join(dir.path, sub));
      writeFileSync(join(dir.path, sub, "tool"), "#!/bin/sh\n");
      chmodSync(join(dir.path, sub, "tool"), mode);
    }
    const path = [
      "",
      join(dir.path, "a"),
      join(dir.path, "missing"),
      join(dir.path, "b"),
      join(dir.path, "c"),
    ].join(":");
    expect({
      all: executablesOnPath("tool", path),
      first: which("tool", path),
      none: which("tool", undefined),
    }).toEqual({
      all: [join(dir.path, "b", "tool"), join(dir.path, "c", "tool")],
      first: join(dir.path, "b", "tool"),
      none: null,
    });
  });
});

describe("readAt", () => {
  test.each([
    { name: "a slice inside the file", offset: 2, length: 3, expected: "cde" },
    { name: "past the end: what is there", offset: 8, length: 5, expected: "ij" },
    { name: "from beyond the end: nothing", offset: 20, length: 4, expected: "" },
    { name: "zero bytes", offset: 0, length: 0, expected: "" },
  ])("$name", ({ offset, length, expected }) => {
    using dir = tempDir("proctor-fsx");
    const path = join(dir.path, "f");
    writeFileSync(path, "abcdefghij");
    const fd = openSync(path, "r");
    try {
      const first = readAt(fd, offset, length).toString("latin1");
      // The descriptor's own position is not moved: a second read gives the same bytes.
      expect({ first, again: readAt(fd, offset, length).toString("latin1") }).toEqual({
        first: expected,
        again: expected,
      });
    } finally {
      closeSync(fd);
    }
  });
});

describe("realpathOr", () => {
  test("a link resolves; a missing path gives the fallback, by default the path itself", () => {
    using dir = tempDir("proctor-fsx");
    const target = join(dir.path, "t");
    writeFileSync(target, "x");
    symlinkSync(target, join(dir.path, "l"));
    const real = realpathOr(target);
    expect({
      link: realpathOr(join(dir.path, "l")),
      missing: realpathOr(join(dir.path, "nope")),
      fallback: realpathOr(join(dir.path, "nope"), "else"),
    }).toEqual({ link: real, missing: join(dir.path, "nope"), fallback: "else" });
  });
});
