import { describe, expect, test } from "bun:test";
import { fastHash, isMain, runtimeName } from "../../lib/core/runtime.ts";

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
