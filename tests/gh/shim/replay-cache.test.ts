import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeArgv } from "../../../lib/gh/cassette.ts";
import { callSpans } from "../../../lib/gh/shim/_spans.ts";
import { defaultCacheDir } from "../../../lib/gh/shim/cache-dir.ts";
import { openReplayer } from "../../../lib/gh/shim/replay-cache.ts";
import { cassetteText, generateCassette } from "../../support/cassette-gen.ts";
import { tempDir } from "../../support/tmp.ts";

describe("callSpans", () => {
  test.each([
    { name: "simple", text: '{"calls": [1, {"a": 2}, "x"]}', expected: ["1", '{"a": 2}', '"x"'] },
    {
      name: "strings with quotes and brackets",
      text: '{"calls":[{"s":"a\\"]}[,"},"\\\\"]}',
      expected: ['{"s":"a\\"]}[,"}', '"\\\\"'],
    },
    {
      name: "whitespace and nesting",
      text: ' {\n "version" : 1 ,\n "calls" : [ [ [] ] , { } ] \n}',
      expected: ["[ [] ]", "{ }"],
    },
    {
      name: "last calls key wins",
      text: '{"calls": [1], "x": {"calls": [9]}, "calls": [2, 3]}',
      expected: ["2", "3"],
    },
    { name: "empty", text: '{"calls": []}', expected: [] },
    { name: "UTF-8 text", text: '{"calls": ["ü✓😀", true]}', expected: ['"ü✓😀"', "true"] },
  ])("$name", ({ text, expected }) => {
    const b = Buffer.from(text, "utf8");
    expect(callSpans(b)?.map(([s, e]) => b.toString("utf8", s, e))).toEqual([...expected]);
  });

  test("no calls key", async () => {
    expect(callSpans(Buffer.from('{"version": 1}'))).toEqual(null);
  });
});

/** Every recorded argv plus misses, looked up by a replayer; returns hit indexes. */
async function lookups(path: string, opts: Parameters<typeof openReplayer>[1]): Promise<(number | null)[]> {
  const gen = generateCassette(300, 7);
  const probes = [
    ...gen.calls.map((c) => c.argv),
    ["auth", "status", "--show-token"],
    ["label", "create", "bug"],
    ["issue", "view", "99999", "--json", "number"],
    ["nothing"],
  ];
  const r = await openReplayer(path, opts);
  const hits: (number | null)[] = [];
  for (const argv of probes) hits.push((await r.lookup(normalizeArgv(argv)))?.index ?? null);
  return hits;
}

describe("openReplayer with an index", () => {
  test("the indexed lookup answers exactly as the full parse, and the cache is reused", async () => {
    using dir = tempDir("shim-cache");
    const path = join(dir.path, "c.json");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    writeFileSync(path, cassetteText(300, 7));
    const full = await lookups(path, { cacheDir: null });
    const first = await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 });
    const files = readdirSync(cache);
    const second = await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 });
    expect({
      sameFirst: first,
      sameSecond: second,
      files: files.length,
      hits: full.filter((x) => x !== null).length,
    }).toEqual({
      sameFirst: full,
      sameSecond: full,
      files: 1,
      hits: 305,
    });
  });

  test("with a warm index a hit or a miss never reads the whole cassette", async () => {
    using dir = tempDir("shim-cache");
    const path = join(dir.path, "c.json");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    writeFileSync(path, cassetteText(300, 7));
    const opts = { cacheDir: cache, indexAbove: 0, settleMs: 0 };
    const cold = await openReplayer(path, opts);
    await cold.lookup(["x"]);
    const target = generateCassette(300, 7).calls[150]!.argv;
    const warm = await openReplayer(path, opts);
    const hit = (await warm.lookup(normalizeArgv(target)))?.index;
    const prefixHit = (await warm.lookup(["auth", "status", "-t"]))?.index;
    const miss = await warm.lookup(["nope"]);
    expect({ cold: cold.parsedWhole(), hit, prefixHit, miss, warm: warm.parsedWhole() }).toEqual({
      cold: true,
      hit: 150,
      prefixHit: 300,
      miss: undefined,
      warm: false,
    });
  });

  test("a corrupt or lying index is ignored", async () => {
    using dir = tempDir("shim-cache");
    const path = join(dir.path, "c.json");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    writeFileSync(path, cassetteText(300, 7));
    const full = await lookups(path, { cacheDir: null });
    await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 });
    const [file] = readdirSync(cache);
    const results: (number | null)[][] = [];
    for (const corrupt of ["", "garbage\n", "proctor-cassette-index-v3 x 1 2\n[]\n"]) {
      writeFileSync(join(cache, file!), corrupt);
      results.push(await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 }));
    }
    // Right header, wrong spans: every row points at the first entry.
    await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 });
    const text = readFileSync(join(cache, file!), "latin1");
    writeFileSync(
      join(cache, file!),
      text.replace(/ \d{10} \d{10} \d{10}\n/g, " 0000000000 0000000010 0000000020\n"),
    );
    results.push(await lookups(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 }));
    expect(results).toEqual([full, full, full, full]);
  });

  test("a cassette that changed within the settle window gets no cache yet", async () => {
    using dir = tempDir("shim-cache");
    const path = join(dir.path, "c.json");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    writeFileSync(path, cassetteText(20));
    await (await openReplayer(path, { cacheDir: cache, indexAbove: 0 })).lookup(["x"]);
    expect(readdirSync(cache)).toEqual([]);
  });

  test("small cassettes and invalid ones never get a cache", async () => {
    using dir = tempDir("shim-cache");
    const small = join(dir.path, "small.json");
    const bad = join(dir.path, "bad.json");
    const cache = join(dir.path, "cache");
    mkdirSync(cache);
    writeFileSync(small, cassetteText(2));
    writeFileSync(bad, `{"version": 3, "calls": [${"1,".repeat(100)}1]}`);
    await (await openReplayer(small, { cacheDir: cache, settleMs: 0 })).lookup(["x"]);
    let message = "";
    try {
      await openReplayer(bad, { cacheDir: cache, indexAbove: 0, settleMs: 0 });
    } catch (error) {
      message = (error as Error).message;
    }
    expect({ files: readdirSync(cache), message }).toEqual({
      files: [],
      message: "unsupported cassette version: 3",
    });
  });
});

test("defaultCacheDir refuses a shared (group/world-writable) parent", async () => {
  using dir = tempDir("shim-cache");
  const env = { TMPDIR: dir.path }; // no HOME: the temp dir's cache
  const ours = defaultCacheDir(env);
  const root = join(dir.path, `proctor-${process.getuid?.()}`);
  chmodSync(root, 0o777);
  const shared = defaultCacheDir(env);
  expect({ ours, shared }).toEqual({ ours: join(root, "cassette-index"), shared: null });
});

test("the cache keeps at most 64 indexes, dropping the oldest", async () => {
  using dir = tempDir("shim-cache");
  const cache = join(dir.path, "cache");
  mkdirSync(cache);
  for (let i = 0; i < 70; i++) writeFileSync(join(cache, `old${String(i).padStart(2, "0")}.idx`), "");
  const past = Date.now() / 1000 - 3600;
  for (let i = 0; i < 70; i++)
    utimesSync(join(cache, `old${String(i).padStart(2, "0")}.idx`), past + i, past + i);
  const path = join(dir.path, "c.json");
  writeFileSync(path, cassetteText(5));
  await (await openReplayer(path, { cacheDir: cache, indexAbove: 0, settleMs: 0 })).lookup(["x"]);
  const left = readdirSync(cache).sort();
  expect({
    count: left.length,
    oldest: left.find((n) => n.startsWith("old")),
    newOnes: left.filter((n) => !n.startsWith("old")).length,
  }).toEqual({
    count: 64,
    oldest: "old07.idx",
    newOnes: 1,
  });
});
