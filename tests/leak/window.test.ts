// The word filter of the streaming word-window search (lib/leak/_match.ts): a word that is in no key
// breaks every window, and keys of several lengths (a short prompt's one key next to 8-word
// shingles) are still found after any run of key words, cut into chunks anywhere. The reference is
// the original's rule (lib/leak/index.ts shingles(), promptShingles()).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { WordWindowSearch } from "../../lib/leak/_match.ts";
import { promptShingles, shingles, words } from "../../lib/leak/index.ts";

const PROMPT = "fix the flaky Retry";
const CRITERION = "the agent opens a pull request that references the issue";
const VOCAB = [...new Set(words(`${PROMPT} ${CRITERION}`)), "Pull", "THE", "other", "x", "pulls", "ref"];

function keyTable(): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const k of promptShingles(PROMPT)) table.set(k, ["prompt"]);
  for (const k of shingles(CRITERION)) table.set(k, [...(table.get(k) ?? []), "c"]);
  return table;
}

function reference(text: string): string[] {
  const w = ` ${words(text).join(" ")} `;
  const hits: string[] = [];
  if (w.includes(` ${[...promptShingles(PROMPT)][0]} `)) hits.push("prompt");
  const found = shingles(text);
  if ([...shingles(CRITERION)].some((k) => found.has(k))) hits.push("c");
  return hits;
}

function streamed(bytes: Buffer, cuts: number[]): string[] {
  const search = new WordWindowSearch(keyTable());
  let at = 0;
  for (const cut of cuts.map((c) => c % (bytes.length + 1)).sort((x, y) => x - y)) {
    search.push(bytes.subarray(at, Math.max(at, cut)));
    at = Math.max(at, cut);
  }
  search.push(bytes.subarray(at));
  search.end();
  return ["prompt", "c"].filter((id) => search.hits.has(id));
}

describe("word filter: non-key words break windows", () => {
  test("random texts of key and non-key words, cut anywhere", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...VOCAB), { maxLength: 80 }),
        fc.array(fc.constantFrom(" ", "\n", ", ", "-", "\u2014"), { maxLength: 80 }),
        fc.array(fc.nat(600), { maxLength: 5 }),
        (ws, seps, cuts) => {
          const text = ws.map((w, i) => w + (seps[i] ?? " ")).join("");
          expect(streamed(Buffer.from(text), cuts)).toEqual(reference(text));
        },
      ),
      { numRuns: 500, seed: 20261130 },
    );
  });

  test.each([
    [
      "a non-key word inside the criterion",
      "the agent opens a pull other request that references the issue",
      [],
    ],
    [
      "a longer word that starts with a key word",
      "the agent opens a pulls request that references the issue",
      [],
    ],
    ["after a long run of key words", `${"the issue ".repeat(50)}${CRITERION}`, ["c"]],
    ["the short prompt key at the end of the stream", "please FIX the flaky retry", ["prompt"]],
    ["the short prompt key broken by a non-key word", "fix the x flaky retry", []],
  ])("%s", (_name, text, hits) => {
    for (const cut of [0, 3, 11, 40]) expect(streamed(Buffer.from(text), [cut])).toEqual(hits);
  });
});
