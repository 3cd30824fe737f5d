// The replay path's start-up is paid by every gh call a subject makes, so its static import graph
// stays small: no consola (measured ~6-9 ms to load in a compiled binary) and no zod (lint and the
// JSON Schema load it lazily). This walks the static imports from scripts/gh-shim.ts, and from what
// the multi-call binary runs as `gh` (scripts/proctor.ts, then lib/gh/cmd.ts): no package and no
// node:* module at all (in a compiled Bun binary node:fs alone costs a third of a hello world's CPU;
// record mode, the call log, the issue store and index building load theirs when used).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "..");

function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\s+from\s+)?"([^"]+)"/gm))
    specs.push(m[1]!);
  return specs;
}

/** Every module the entries load up front, and the packages and node:* modules among them. */
function graph(entries: string[]): { modules: string[]; packages: string[]; builtins: string[] } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const queue = entries.map((e) => join(ROOT, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) queue.push(resolve(dirname(file), spec));
      else if (spec.startsWith("node:")) builtins.add(spec);
      else packages.add(spec);
    }
  }
  const modules = [...seen].map((f) => relative(ROOT, f));
  return { modules, packages: [...packages].sort(), builtins: [...builtins].sort() };
}

test("the multi-call binary's gh (and --version) loads no package and no node:* module up front", () => {
  const { packages, builtins } = graph(["scripts/proctor.ts", "lib/gh/cmd.ts"]);
  expect({ packages, builtins }).toEqual({ packages: [], builtins: [] });
});

test("scripts/gh-shim.ts loads no consola, no zod and none of lint's modules up front", () => {
  const { modules, packages } = graph(["scripts/gh-shim.ts"]);
  expect({
    packages,
    heavy: modules.filter((m) =>
      ["lib/core/log.ts", "lib/gh/cassette-schema.ts", "lib/gh/shim/lint.ts"].includes(m),
    ),
  }).toEqual({ packages: ["citty"], heavy: [] });
});
