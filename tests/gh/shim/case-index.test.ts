// The runner's index beside its cassette copy (lib/gh/shim/case-index.ts): written at once for a
// fresh copy (no settle wait, no cache dir), used by the shim without parsing the whole cassette, and
// ignored whenever the copy no longer has the stamps it was built for or the index is damaged.
import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { statFileSync } from "../../../lib/core/runtime.ts";
import { normalizeArgv } from "../../../lib/gh/cassette.ts";
import { INDEX_ABOVE, type SourceStamp, writeCaseIndex } from "../../../lib/gh/shim/case-index.ts";
import { cassetteStamp, openReplayer, sidecarPath } from "../../../lib/gh/shim/replay-cache.ts";
import { cassetteText, generateCassette } from "../../support/cassette-gen.ts";
import { tempDir } from "../../support/tmp.ts";

const PROBES = [
  ...generateCassette(300, 7).calls.map((c) => c.argv),
  ["auth", "status", "--show-token"],
  ["issue", "view", "99999", "--json", "number"],
  ["nothing"],
];

/** Hit indexes for every probe, and whether the replayer had to parse the whole cassette. */
async function lookups(path: string): Promise<{ hits: (number | null)[]; parsedWhole: boolean }> {
  const r = await openReplayer(path, { cacheDir: null });
  const hits: (number | null)[] = [];
  for (const argv of PROBES) hits.push((await r.lookup(normalizeArgv(argv)))?.index ?? null);
  return { hits, parsedWhole: r.parsedWhole() };
}

/** What the full parse answers for every probe. */
async function truth(path: string): Promise<(number | null)[]> {
  return (await lookupsWith(path, { cacheDir: null, indexAbove: Number.MAX_SAFE_INTEGER })).hits;
}

async function lookupsWith(path: string, opts: Parameters<typeof openReplayer>[1]) {
  const r = await openReplayer(path, opts);
  const hits: (number | null)[] = [];
  for (const argv of PROBES) hits.push((await r.lookup(normalizeArgv(argv)))?.index ?? null);
  return { hits, parsedWhole: r.parsedWhole() };
}

describe("writeCaseIndex", () => {
  test("a fresh copy is indexed at once; the shim answers as the full parse without reading it whole", async () => {
    using dir = tempDir("case-index");
    const path = join(dir.path, "cassettes.json");
    writeFileSync(path, cassetteText(300, 7));
    const expected = await truth(path);
    const index = writeCaseIndex(path, { indexAbove: 0, cacheDir: null });
    expect({
      index,
      mode: statSync(sidecarPath(path)).mode & 0o777,
      got: await lookups(path),
    }).toEqual({
      index: join(dir.path, ".cassettes.json.idx"),
      mode: 0o444,
      got: { hits: expected, parsedWhole: false },
    });
  });

  test.each([
    { name: "a cassette below the threshold", text: cassetteText(2), above: INDEX_ABOVE },
    { name: "an invalid cassette (the shim reports it)", text: '{"version": 3, "calls": []}', above: 0 },
    { name: "a file that is not JSON", text: "not json", above: 0 },
    { name: "a file that is not UTF-8", text: Buffer.from([0x7b, 0xff, 0x7d]), above: 0 },
  ])("no index for $name", async ({ text, above }) => {
    using dir = tempDir("case-index");
    const path = join(dir.path, "cassettes.json");
    writeFileSync(path, text);
    expect({
      index: writeCaseIndex(path, { indexAbove: above, cacheDir: null }),
      file: existsSync(sidecarPath(path)),
    }).toEqual({
      index: null,
      file: false,
    });
  });

  test("the same bytes in another copy are indexed from the runner's cache, keyed by their digest", async () => {
    using dir = tempDir("case-index");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    const copies = ["a", "b"].map((name) => {
      mkdirSync(join(dir.path, name));
      const path = join(dir.path, name, "cassettes.json");
      writeFileSync(path, cassetteText(300, 7));
      return path;
    });
    const expected = await truth(copies[0]!);
    writeCaseIndex(copies[0]!, { indexAbove: 0, cacheDir: cache });
    const [entry] = readdirSync(cache);
    const written = statSync(join(cache, entry!)).mtimeMs;
    writeCaseIndex(copies[1]!, { indexAbove: 0, cacheDir: cache });
    expect({
      files: readdirSync(cache).length,
      reused: statSync(join(cache, entry!)).mtimeMs === written,
      a: await lookups(copies[0]!),
      b: await lookups(copies[1]!),
    }).toEqual({
      files: 1,
      reused: true,
      a: { hits: expected, parsedWhole: false },
      b: { hits: expected, parsedWhole: false },
    });
  });

  test("a copy of a settled source stamped before the copy is keyed by the source's stamp", async () => {
    using dir = tempDir("case-index");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    const source = join(dir.path, "case.json");
    writeFileSync(source, cassetteText(300, 7));
    // stamped as if a second after its last write (the settle rule), then copied twice
    const stamp = (): SourceStamp => ({
      path: source,
      st: statFileSync(source)!,
      at: Date.now() + 1000,
    });
    const copies = ["a", "b"].map((name) => join(dir.path, `${name}.json`));
    const results = [];
    for (const copy of copies) {
      const before = stamp();
      writeFileSync(copy, readFileSync(source));
      results.push(writeCaseIndex(copy, { indexAbove: 0, cacheDir: cache, source: before, settleMs: 500 }));
    }
    const [entry] = readdirSync(cache);
    const written = statSync(join(cache, entry!)).mtimeMs;
    // a source that changed after it was stamped: the copy is hashed instead, under another key
    const before = stamp();
    writeFileSync(source, readFileSync(source, "utf8").replace('"view"', '"vie_"'));
    writeFileSync(join(dir.path, "c.json"), readFileSync(source));
    writeCaseIndex(join(dir.path, "c.json"), {
      indexAbove: 0,
      cacheDir: cache,
      source: before,
      settleMs: 500,
    });
    expect({
      indexed: results.map((r) => r !== null),
      key: entry,
      reused: statSync(join(cache, entry!)).mtimeMs === written,
      files: readdirSync(cache).length,
      a: (await lookups(copies[0]!)).parsedWhole,
      b: (await lookups(copies[1]!)).hits,
      c: (await lookups(join(dir.path, "c.json"))).hits[0],
    }).toEqual({
      indexed: [true, true],
      key: `${cassetteStamp(before.st)}.idx`,
      reused: true,
      files: 2,
      a: false,
      b: await truth(copies[1]!),
      c: null,
    });
  });

  test("the shim's error for an invalid cassette is the same with or without the runner", async () => {
    using dir = tempDir("case-index");
    const path = join(dir.path, "cassettes.json");
    writeFileSync(path, `{"version": 3, "calls": [${"1,".repeat(40_000)}1]}`);
    writeCaseIndex(path, { indexAbove: 0, cacheDir: null });
    let message = "";
    try {
      await (await openReplayer(path, { cacheDir: null })).lookup(["x"]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toEqual("unsupported cassette version: 3");
  });
});

describe("a copy that changed after indexing is replayed from its bytes", () => {
  // entry 0's argv becomes issue vie_ 1 ...: its probe misses from then on
  const changes: { name: string; change: (path: string) => void; first: number | null }[] = [
    {
      name: "rewritten in place, same size, new time stamps",
      change: (path) => {
        const text = readFileSync(path, "utf8");
        writeFileSync(path, text.replace('"view"', '"vie_"'));
        utimesSync(path, new Date(0), new Date(0));
      },
      first: null,
    },
    {
      name: "replaced by another file (new inode)",
      change: (path) => {
        writeFileSync(`${path}.new`, readFileSync(path, "utf8").replace('"view"', '"vie_"'));
        renameSync(`${path}.new`, path);
      },
      first: null,
    },
    {
      name: "the index damaged (the sandbox binds it read-only; a damaged one still never decides)",
      change: (path) => {
        const idx = sidecarPath(path);
        const text = readFileSync(idx, "latin1");
        writeFileSync(idx, text.replace(/ \d{10} \d{10} \d{10}\n/g, " 0000000000 0000000010 0000000020\n"));
      },
      first: 0,
    },
  ];
  test.each(changes)("$name", async ({ change, first }) => {
    using dir = tempDir("case-index");
    const path = join(dir.path, "cassettes.json");
    writeFileSync(path, cassetteText(300, 7));
    writeCaseIndex(path, { indexAbove: 0, cacheDir: null });
    change(path);
    const expected = await truth(path);
    const got = (await lookups(path)).hits;
    expect({ got, first: got[0] }).toEqual({ got: expected, first });
  });
});
