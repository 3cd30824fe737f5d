// 7.4 T2 for every hermetic case in evals/cases: each exact cassette entry replays byte for byte
// through the shim (stdout, stderr, exit), and each cassette lints clean.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { runGh } from "../../lib/shim/gh.ts";
import { lintCassetteText } from "../../lib/shim/lint.ts";
import { Recorder } from "../../lib/shim/record.ts";

const ROOT = join(import.meta.dirname, "..", "..");

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

test.each(files.map((path) => ({ name: relative(ROOT, path), path })))("$name", async ({ path }) => {
  const text = readFileSync(path, "utf8");
  const calls = (JSON.parse(text).calls ?? []) as {
    argv: string[];
    match?: string;
    stdout?: string;
    stderr?: string;
    exit?: number;
  }[];
  const exact = calls.filter((c) => c.match !== "prefix");
  const replayed = [];
  for (const c of exact) {
    const r = await runGh(c.argv, {
      env: { EVAL_CASSETTES: path },
      cwd: ROOT,
      self: [],
      recorder: new Recorder(),
      replay: { cacheDir: null },
    });
    replayed.push(r);
  }
  expect({ lint: lintCassetteText(text), replayed }).toEqual({
    lint: [],
    replayed: exact.map((c) => ({ stdout: c.stdout ?? "", stderr: c.stderr ?? "", exitCode: c.exit ?? 0 })),
  });
});
