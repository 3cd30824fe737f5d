// The streaming word-window search (lib/leak/_match.ts) against the reference tokeniser of the
// original (`re.findall(r"[a-z0-9]+", text.lower())`, lib/leak/index.ts shingles()): the same hits for
// any text, cut into chunks anywhere (inside words and inside multi-byte characters), and the same
// UTF-8 verdict. The post-run scan's speed comes from matching on hashes, so this is its guard.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { WordWindowSearch } from "../../lib/leak/_match.ts";
import { shingles } from "../../lib/leak/index.ts";

const CRITERIA = [
  { id: "a", text: "The agent opens a pull request that references the new issue." },
  { id: "b", text: "Ünïcode K words İstanbul then eight more plain words here ok" },
];
const VOCAB = [
  ...new Set(CRITERIA.flatMap((c) => c.text.split(" "))),
  "The",
  "AGENT",
  "kelvin",
  "ß",
  "日本",
  "😀",
  "\n",
  ",",
  "-",
  "x9",
];

function keyTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const c of CRITERIA) for (const k of shingles(c.text)) table.set(k, [...(table.get(k) ?? []), c.id]);
  return table;
}

function reference(text: string): string[] {
  const found = shingles(text);
  return CRITERIA.filter((c) => [...shingles(c.text)].some((k) => found.has(k))).map((c) => c.id);
}

function streamed(bytes: Buffer, cuts: number[]): { hits: string[]; utf8: boolean } {
  const search = new WordWindowSearch(keyTable());
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((x, y) => x - y)) {
    search.push(bytes.subarray(at, Math.max(at, cut)));
    at = Math.max(at, cut);
  }
  search.push(bytes.subarray(at));
  search.end();
  return { hits: CRITERIA.map((c) => c.id).filter((id) => search.hits.has(id)), utf8: search.utf8 };
}

describe("WordWindowSearch equals the reference tokeniser", () => {
  test("random texts from the criteria's words, cut anywhere", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...VOCAB), { maxLength: 60 }),
        fc.array(fc.constantFrom(" ", "  ", "\n", "", "."), { maxLength: 60 }),
        fc.array(fc.nat(400), { maxLength: 6 }),
        (ws, seps, cuts) => {
          const text = ws.map((w, i) => w + (seps[i] ?? " ")).join("");
          expect(streamed(Buffer.from(text), cuts)).toEqual({ hits: reference(text), utf8: true });
        },
      ),
      { numRuns: 400, seed: 20261130 },
    );
  });
  test.each([
    ["the whole criterion", CRITERIA[0]!.text, ["a"]],
    ["upper case", CRITERIA[0]!.text.toUpperCase(), ["a"]],
    ["seven words only", "The agent opens a pull request that", []],
    ["Kelvin sign and dotted I", "ünïcode \u212a words \u0130stanbul then eight more plain words", ["b"]],
  ])("%s", (_name, text, hits) => {
    for (const cut of [0, 1, 5, 17]) expect(streamed(Buffer.from(text), [cut])).toEqual({ hits, utf8: true });
  });
  test.each([
    ["a stray continuation byte", Buffer.from([0x61, 0x80, 0x62])],
    ["a stream cut inside a character", Buffer.from([0x61, 0x20, 0xe2, 0x84])],
    ["an overlong encoding", Buffer.from([0xc0, 0xaf])],
  ])("%s is not UTF-8", (_name, bytes) => {
    expect(streamed(bytes, [1, 3]).utf8).toBe(false);
  });
});
