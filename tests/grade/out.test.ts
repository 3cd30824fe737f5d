import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { outArtifact, readArtifactValue, subOut } from "../../lib/grade/out.ts";
import { tempDir } from "../support/tmp.ts";

describe("subOut (T13: OUT only as a path root)", () => {
  const cases = [
    { input: "OUT/issue.md", want: "/o/issue.md" },
    { input: "OUT", want: "/o" },
    { input: "OUTPUT.md", want: "OUTPUT.md" },
    { input: "TIMEOUT", want: "TIMEOUT" },
    { input: "OUT_x OUT1 xOUT", want: "OUT_x OUT1 xOUT" },
    { input: "--title=OUT/t.txt", want: "--title=/o/t.txt" },
    { input: "a OUT/x b OUT/y", want: "a /o/x b /o/y" },
    { input: "OUT.md", want: "/o.md" },
    { input: "OUT\n", want: "/o\n" },
    { input: "$&OUT", want: "$&/o" },
  ];
  for (const c of cases) test(JSON.stringify(c.input), () => expect(subOut(c.input, "/o")).toEqual(c.want));
});

describe("outArtifact", () => {
  test("accepts OUT/ paths inside OUT and refuses everything else", () => {
    using tmp = tempDir("grade-out");
    const out = join(tmp.path, "out");
    mkdirSync(join(out, "sub"), { recursive: true });
    writeFileSync(join(tmp.path, "secret"), "s");
    symlinkSync(join(tmp.path, "secret"), join(out, "link"));
    symlinkSync(tmp.path, join(out, "dirlink"));
    const tokens = [
      "OUT/a.txt",
      "OUT/sub/b",
      "OUT/../secret",
      "OUT/sub/../../secret",
      "OUT/link",
      "OUT/dirlink/secret",
      "OUT/a b",
      "/etc/passwd",
      "OUT",
      "OUT/",
      "out/a",
    ];
    expect(tokens.map((t) => outArtifact(t, out))).toEqual([
      { ok: true, path: join(out, "a.txt") },
      { ok: true, path: join(out, "sub", "b") },
      { ok: false, why: "traversal" },
      { ok: false, why: "traversal" },
      { ok: false, why: "symlink" },
      { ok: false, why: "symlink" },
      { ok: false, why: "pattern" },
      { ok: false, why: "pattern" },
      { ok: false, why: "pattern" },
      { ok: false, why: "pattern" },
      { ok: false, why: "pattern" },
    ]);
  });
});

describe("readArtifactValue", () => {
  const cases: { name: string; content: string | Uint8Array; want: unknown }[] = [
    {
      name: "newlines removed, CR kept",
      content: "fix/1-a\r\n\nb\n",
      want: { ok: true, value: "fix/1-a\rb" },
    },
    { name: "BOM kept", content: "\ufeffx", want: { ok: true, value: "\ufeffx" } },
    { name: "exactly 64 KiB", content: "a".repeat(65536), want: { ok: true, value: "a".repeat(65536) } },
    {
      name: "over 64 KiB",
      content: "a".repeat(65537),
      want: { ok: false, reason: "OUT artifact exceeds the 64 KiB argv limit" },
    },
    {
      name: "not UTF-8",
      content: new Uint8Array([0x66, 0xff, 0x0a]),
      want: { ok: false, reason: "OUT artifact is not valid UTF-8" },
    },
    {
      name: "a surrogate is not UTF-8",
      content: new Uint8Array([0xed, 0xa0, 0x80]),
      want: { ok: false, reason: "OUT artifact is not valid UTF-8" },
    },
    { name: "NUL", content: "a\0b", want: { ok: false, reason: "OUT artifact contains a NUL byte" } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      using tmp = tempDir("grade-artifact");
      const path = join(tmp.path, "a");
      writeFileSync(path, c.content);
      expect(readArtifactValue(path)).toEqual(c.want as ReturnType<typeof readArtifactValue>);
    });
  }
});
