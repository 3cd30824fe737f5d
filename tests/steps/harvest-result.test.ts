// The lazy harvest outcome: the CLI's output streamed from the spill in chunks is byte for byte
// JSON.stringify of the collected result (and the text lines of its previews), dry run and writing,
// over a store whose output spans several chunks; the written paths are the files on disk.
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harvest, harvestRun } from "../../lib/steps/harvest.ts";
import { previewLine, resultChunks } from "../../lib/steps/harvest-result.ts";
import { generateSessions, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";

function store(dir: string) {
  const key = join(dir, "pair.key");
  writeFileSync(key, Buffer.alloc(32, 7).toString("base64"));
  const pairs = generateSessions({ seed: 3, sessions: 30 }).flatMap((s) => sessionPairs(s).pairs);
  const path = join(dir, "pairs.jsonl");
  writePairStore(path, pairs);
  return { pairs: path, key };
}

describe("streamed output equals the collected result", () => {
  const now = new Date("2026-11-30T04:00:00Z");
  test.each([{ dryRun: true }, { dryRun: false }])("dry run: $dryRun", async ({ dryRun }) => {
    using dir = tempDir("harvest-result");
    const s = store(dir.path);
    const base = { pairs: s.pairs, pairKeyFiles: [s.key], experiment: "exp", now, dryRun };
    const lazyOut = join(dir.path, "lazy");
    using lazy = await harvestRun({ ...base, out: lazyOut });
    const json = [...resultChunks(lazy, "json")];
    const text = [...resultChunks(lazy, "text")];
    const whole = await harvest({ ...base, out: join(dir.path, "whole") });
    // The paths differ only by the out directory; the same harvest into `lazy` gives the same names.
    const expected = { ...whole, written: whole.written.map((p) => p.replace("/whole/", "/lazy/")) };
    expect({
      json: json.join(""),
      text: text.join(""),
      count: lazy.count,
      chunked: json.length > 1,
      onDisk: dryRun ? [] : readdirSync(lazyOut).sort(),
    }).toEqual({
      json: `${JSON.stringify(expected)}\n`,
      text: whole.cases.map(previewLine).join(""),
      count: whole.cases.length,
      chunked: true,
      onDisk: expected.written.map((p) => p.slice(lazyOut.length + 1)).sort(),
    });
  });
});
