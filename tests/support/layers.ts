// The layering rules of lib/ as data, and a checker over an import graph: what tests/layering.test.ts
// runs on the real tree and on planted graphs. Rooms are lib/'s top-level folders. compat/ is pure
// ports (imports nothing of ours); core/ is the base every room may use; the shared parts may use
// core/, compat/ and each other; a lane may use those and itself, never another lane; mcp/ is a front
// (like scripts/) that shows the lanes' results to agents, so it may read lanes and nothing imports it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

export const COMPAT = ["compat"] as const;
export const CORE = ["core"] as const;
export const SHARED = [
  "wire",
  "isolation",
  "gh",
  "grade",
  "stats",
  "redact",
  "leak",
  "report",
  "judge",
] as const;
export const LANES = ["hermetic", "promotion", "suite", "steps"] as const;
export const FRONTS = ["mcp"] as const;

type Kind = "compat" | "core" | "shared" | "lane" | "front";

/** The kind of a room, or undefined for a room the rules do not know (itself a violation). */
export function kindOf(room: string): Kind | undefined {
  if ((COMPAT as readonly string[]).includes(room)) return "compat";
  if ((CORE as readonly string[]).includes(room)) return "core";
  if ((SHARED as readonly string[]).includes(room)) return "shared";
  if ((LANES as readonly string[]).includes(room)) return "lane";
  if ((FRONTS as readonly string[]).includes(room)) return "front";
  return undefined;
}

/** An import graph: lib-relative file -> lib-relative files it imports. */
export type Graph = Map<string, string[]>;

const roomOf = (file: string) => (file.includes("/") ? (file.split("/")[0] as string) : "");

/** Why `from` may not import `to`, or undefined when it may. */
export function refusal(from: string, to: string): string | undefined {
  const a = roomOf(from);
  const b = roomOf(to);
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === undefined)
    return `${from}: lib/${a || from} is not a known room (add it to tests/support/layers.ts)`;
  if (kb === undefined) return `${to}: lib/${b || to} is not a known room`;
  if (a === b) return undefined;
  if (kb === "front") return `${from} imports ${to}: nothing imports a front`;
  switch (ka) {
    case "compat":
      return `${from} imports ${to}: compat/ imports nothing of ours`;
    case "core":
      return kb === "compat" ? undefined : `${from} imports ${to}: core/ imports only compat/`;
    case "shared":
      return kb === "lane" ? `${from} imports ${to}: a shared part imports a lane` : undefined;
    case "lane":
      return kb === "lane" ? `${from} imports ${to}: a lane imports another lane` : undefined;
    case "front":
      return undefined;
  }
}

/** Every import cycle among files, each as a path a -> b -> ... -> a (Tarjan's strongly connected parts). */
export function cycles(graph: Graph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(part.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** Every violation of the rules in `graph`: cross-room refusals, then cycles. */
export function violations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [from, tos] of graph)
    for (const to of tos) {
      const why = refusal(from, to);
      if (why) found.push(why);
    }
  for (const c of cycles(graph)) found.push(`import cycle: ${c.join(" <-> ")}`);
  return [...new Set(found)].sort();
}

const SPEC = /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

/** The import graph of every .ts file under `libDir` (static, re-export and literal dynamic imports). */
export function libGraph(libDir: string): Graph {
  const graph: Graph = new Map();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) {
        const text = readFileSync(p, "utf8");
        const tos: string[] = [];
        for (const m of text.matchAll(SPEC)) {
          const spec = m[1] ?? m[2];
          if (!spec?.startsWith(".") || !spec.endsWith(".ts")) continue;
          const target = relative(libDir, resolve(dirname(p), spec))
            .split(sep)
            .join("/");
          tos.push(target);
        }
        graph.set(relative(libDir, p).split(sep).join("/"), [...new Set(tos)].sort());
      }
    }
  };
  walk(libDir);
  return graph;
}
