// Protocol knowledge lives only in lib/wire: a grep over lib/ and scripts/ finds no file outside
// lib/wire that compares against a protocol name, switches on one, or reaches a protocol module by
// name; callers ask the registry (`protocol(name).buildRequest(...)`) instead.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "../..");
const NAME = `["'\`](?:anthropic|bedrock|responses|gemini)["'\`]`;

const FORBIDDEN = [
  { what: "compares with a protocol name", re: new RegExp(`(?:[!=]==?\\s*${NAME})|(?:${NAME}\\s*[!=]==?)`) },
  { what: "switches on a protocol name", re: new RegExp(`\\bcase\\s+${NAME}\\s*:`) },
  {
    what: "reaches a protocol module by name",
    re: /\bwire\.(?:anthropic|bedrock|responses|gemini)\b|import\s*(?:type\s*)?\{[^}]*\b(?:anthropic|bedrock|responses|gemini)\b[^}]*\}\s*from\s*["'][^"']*\/wire\//,
  },
];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(ROOT, dir, name);
    if (statSync(path).isDirectory()) return tsFiles(join(dir, name));
    return name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

/** Every offence in `text`, one per line and rule, as `<file>:<line>: <what>`. */
function offences(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) => FORBIDDEN.filter((f) => f.re.test(line)).map((f) => `${file}:${i + 1}: ${f.what}`));
}

test("no file outside lib/wire switches on a protocol name", () => {
  const files = [...tsFiles("lib"), ...tsFiles("scripts")].filter((f) => !f.startsWith("lib/wire/"));
  expect(files.length).toBeGreaterThan(50);
  expect(files.flatMap((f) => offences(f, readFileSync(join(ROOT, f), "utf8")))).toEqual([]);
});

test("the grep catches each kind of offender, and not a name used as data", () => {
  const planted = [
    'if (protocol === "bedrock") return {};',
    "const k = 'gemini' !== p ? a : b;",
    '    case "responses":',
    "const p = wire.anthropic;",
    'import { bedrock, isRecord } from "../wire/index.ts";',
    'const wire_api = { wire_api: "responses" };',
    'const p = value ?? "anthropic";',
  ].join("\n");
  expect(offences("x.ts", planted)).toEqual([
    "x.ts:1: compares with a protocol name",
    "x.ts:2: compares with a protocol name",
    "x.ts:3: switches on a protocol name",
    "x.ts:4: reaches a protocol module by name",
    "x.ts:5: reaches a protocol module by name",
  ]);
});
