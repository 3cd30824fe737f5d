// A seeded generator of large, realistic cassettes (for the replay benchmark and index tests):
// issue/pr views with --json field lists, issue/pr lists, gh api reads, ~300-byte stdout each, and a
// few prefix entries. Same seed, same bytes. Run directly to write one:
//   bun tests/support/cassette-gen.ts <entries> <out.json> [seed]
import { writeFileSync } from "node:fs";
import { isMain } from "../../lib/core/runtime.ts";

/** mulberry32: a tiny deterministic PRNG, enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "login",
  "redirect",
  "mobile",
  "crash",
  "token",
  "refresh",
  "cache",
  "timeout",
  "retry",
  "docs",
  "flaky",
  "auth",
];
const FIELDS = ["number", "title", "body", "state", "labels", "url", "author", "comments"];

/** One generated cassette entry. */
export interface GenEntry {
  argv: string[];
  stdout: string;
  stderr: string;
  exit: number;
  match?: "prefix";
}

/** The i-th entry's argv for a seed (also what a test calls to hit that entry). */
function entryFor(i: number, rnd: () => number): GenEntry {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const title = Array.from({ length: 4 }, () => pick(WORDS)).join(" ");
  const fields = FIELDS.filter(() => rnd() < 0.6);
  if (fields.length === 0) fields.push("number");
  const n = i + 1;
  const payload = {
    number: n,
    title,
    state: rnd() < 0.8 ? "OPEN" : "CLOSED",
    url: `https://github.com/acme/widgets/issues/${n}`,
    body: `Steps: open the ${pick(WORDS)} page, wait for the ${pick(WORDS)}; expected ${pick(WORDS)} but got ${pick(WORDS)}. `.repeat(
      2,
    ),
  };
  const stdout = `${JSON.stringify(payload)}\n`;
  switch (i % 4) {
    case 0:
      return { argv: ["issue", "view", String(n), "--json", fields.join(",")], stdout, stderr: "", exit: 0 };
    case 1:
      return { argv: ["pr", "view", String(n), "--json", fields.join(",")], stdout, stderr: "", exit: 0 };
    case 2:
      return {
        argv: ["api", `repos/acme/widgets/issues/${n}`, "--jq", ".title"],
        stdout,
        stderr: "",
        exit: 0,
      };
    default:
      return {
        argv: ["issue", "list", "--search", `${title} ${n}`, "--json", fields.join(",")],
        stdout,
        stderr: "",
        exit: 0,
      };
  }
}

/** A cassette of `count` entries (plus 3 prefix entries at the end), deterministic for `seed`. */
export function generateCassette(count: number, seed = 1): { version: 1; calls: GenEntry[] } {
  const rnd = prng(seed);
  const calls = Array.from({ length: count }, (_, i) => entryFor(i, rnd));
  calls.push(
    { match: "prefix", argv: ["auth", "status"], stdout: "github.com\n  ✓ Logged in\n", stderr: "", exit: 0 },
    { match: "prefix", argv: ["label", "create"], stdout: "", stderr: "", exit: 0 },
    { match: "prefix", argv: ["repo", "view"], stdout: '{"name":"widgets"}\n', stderr: "", exit: 0 },
  );
  return { version: 1, calls };
}

/** The cassette as it is written to disk (two-space JSON, trailing newline). */
export function cassetteText(count: number, seed = 1): string {
  return `${JSON.stringify(generateCassette(count, seed), null, 2)}\n`;
}

if (isMain(import.meta)) {
  const [count = "10000", out = "cassettes.json", seed = "1"] = process.argv.slice(2);
  writeFileSync(out, cassetteText(Number(count), Number(seed)));
}
