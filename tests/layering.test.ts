import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Graph, libGraph, violations } from "./support/layers.ts";

const LIB = join(import.meta.dirname, "..", "lib");

describe("lib/ layering", () => {
  test("no lane imports another lane, no shared part imports a lane, no import cycle", () => {
    expect(violations(libGraph(LIB))).toEqual([]);
  });

  test("every import resolves to a file under lib/", () => {
    const graph = libGraph(LIB);
    const missing = [...graph].flatMap(([from, tos]) =>
      tos.filter((t) => !graph.has(t)).map((t) => `${from} -> ${t}`),
    );
    expect(missing).toEqual([]);
  });
});

// The checker itself, on planted graphs: each row must be caught (or allowed) exactly as named.
const g = (edges: [string, string][]): Graph => {
  const graph: Graph = new Map();
  for (const [a, b] of edges) {
    graph.set(a, [...(graph.get(a) ?? []), b]);
    if (!graph.has(b)) graph.set(b, []);
  }
  return graph;
};

test.each([
  {
    name: "a lane on core and shared parts",
    edges: [
      ["steps/harvest.ts", "core/fsx.ts"],
      ["steps/harvest.ts", "redact/index.ts"],
    ],
    want: [],
  },
  {
    name: "a lane importing another lane",
    edges: [["suite/run.ts", "hermetic/many.ts"]],
    want: ["suite/run.ts imports hermetic/many.ts: a lane imports another lane"],
  },
  {
    name: "a shared part importing a lane",
    edges: [["report/index.ts", "steps/report.ts"]],
    want: ["report/index.ts imports steps/report.ts: a shared part imports a lane"],
  },
  {
    name: "core importing a shared part",
    edges: [["core/cli.ts", "grade/out.ts"]],
    want: ["core/cli.ts imports grade/out.ts: core/ imports only compat/"],
  },
  {
    name: "compat importing core",
    edges: [["compat/py/json.ts", "core/errors.ts"]],
    want: ["compat/py/json.ts imports core/errors.ts: compat/ imports nothing of ours"],
  },
  {
    name: "a lane importing the mcp front",
    edges: [["steps/harvest.ts", "mcp/server.ts"]],
    want: ["steps/harvest.ts imports mcp/server.ts: nothing imports a front"],
  },
  {
    name: "the mcp front reading lanes",
    edges: [
      ["mcp/server.ts", "steps/harvest.ts"],
      ["mcp/server.ts", "suite/scorecard/index.ts"],
    ],
    want: [],
  },
  {
    name: "an unknown room",
    edges: [["runner/x.ts", "core/fsx.ts"]],
    want: ["runner/x.ts: lib/runner is not a known room (add it to tests/support/layers.ts)"],
  },
  {
    name: "a two-file cycle inside one room",
    edges: [
      ["isolation/sandbox/index.ts", "isolation/sandbox/_wrap.ts"],
      ["isolation/sandbox/_wrap.ts", "isolation/sandbox/index.ts"],
    ],
    want: ["import cycle: isolation/sandbox/_wrap.ts <-> isolation/sandbox/index.ts"],
  },
  {
    name: "a three-file cycle across shared parts",
    edges: [
      ["gh/a.ts", "redact/b.ts"],
      ["redact/b.ts", "leak/c.ts"],
      ["leak/c.ts", "gh/a.ts"],
    ],
    want: ["import cycle: gh/a.ts <-> leak/c.ts <-> redact/b.ts"],
  },
] as { name: string; edges: [string, string][]; want: string[] }[])("$name", ({ edges, want }) => {
  expect(violations(g(edges))).toEqual(want);
});
