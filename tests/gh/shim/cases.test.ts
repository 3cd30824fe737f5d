// Every case cassette in evals/cases lints clean. Their replay through the shim (7.4 T2: each
// exact entry byte for byte, version 1, no duplicates, exit 0, parsable --json payloads) is checked
// per case in tests/cases-offline.test.ts.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { lintCassetteText } from "../../../lib/gh/shim/lint.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function cassettes(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return cassettes(path);
    return name === "cassettes.json" ? [path] : [];
  });
}

const files = cassettes(join(ROOT, "evals", "cases"));

test("there are case cassettes to check", () => {
  expect(files.length).toBeGreaterThan(0);
});

test.each(files.map((path) => ({ name: relative(ROOT, path), path })))("$name lints clean", ({ path }) => {
  expect(lintCassetteText(readFileSync(path, "utf8"))).toEqual([]);
});
