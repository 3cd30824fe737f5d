// core/jsonl.ts's loadJsonFile, the one reader of a whole JSON file that merge uses for each shard:
// a good file comes back as written, and every bad one is one ConfigError line naming the noun, the
// file and why, with the caller's exit code.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../../lib/core/errors.ts";
import { loadJsonFile } from "../../lib/core/jsonl.ts";
import { tempDir } from "../support/tmp.ts";

const Doc = z.object({ version: z.literal(1), name: z.string() });

test.each<{ name: string; text: string | null; exitCode?: number; want: unknown }>([
  { name: "a good file", text: '{"version": 1, "name": "a"}', want: { value: { version: 1, name: "a" } } },
  {
    name: "a missing file, the caller's exit code",
    text: null,
    exitCode: 2,
    want: { exit: 2, message: 'Cannot read doc "<F>": no such file' },
  },
  {
    name: "not JSON",
    text: "{",
    want: { exit: 3, message: /^Cannot load doc "<F>": JSON Parse error/ },
  },
  {
    name: "not the format",
    text: '{"version": 2, "name": "a"}',
    want: { exit: 3, message: 'Cannot load doc "<F>": Invalid input: expected 1 at version' },
  },
])("loadJsonFile: $name", ({ text, exitCode, want }) => {
  using tmp = tempDir("json-file");
  const path = join(tmp.path, "doc.json");
  if (text !== null) writeFileSync(path, text);
  let got: unknown;
  try {
    got = { value: loadJsonFile(path, Doc, "doc", exitCode) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    got = { exit: error.exitCode, message: error.message.replaceAll(path, "<F>") };
  }
  if (want && typeof (want as { message?: unknown }).message === "object") {
    const w = want as { exit: number; message: RegExp };
    expect(got).toMatchObject({ exit: w.exit });
    expect((got as { message: string }).message).toMatch(w.message);
  } else expect(got).toEqual(want);
});
