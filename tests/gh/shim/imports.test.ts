// The replay path's start-up is paid by every gh call a subject makes, so its static import graph
// stays small: no consola (measured ~6-9 ms to load in a compiled binary) and no zod (lint and the
// JSON Schema load it lazily). This walks the static imports from scripts/gh-shim.ts.
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

test("scripts/gh-shim.ts loads no consola, no zod and none of lint's modules up front", () => {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(ROOT, "scripts", "gh-shim.ts")];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith(".")) queue.push(resolve(dirname(file), spec));
      else if (!spec.startsWith("node:")) packages.add(spec);
    }
  }
  const modules = [...seen].map((f) => relative(ROOT, f));
  expect({
    packages: [...packages].sort(),
    heavy: modules.filter((m) =>
      ["lib/core/log.ts", "lib/gh/cassette-schema.ts", "lib/gh/shim/lint.ts"].includes(m),
    ),
  }).toEqual({ packages: ["citty"], heavy: [] });
});
