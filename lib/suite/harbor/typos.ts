// task.toml's likely typos: Harbor keeps and ignores keys it does not know (config.ts keeps them too,
// as Harbor keeps adding keys), so `[agent] timout_sec = 60` would silently run with the default
// timeout. A key of a table Harbor reads that is a letter or two from one it does read is named, with
// that key, as a warning: the task still loads, as it does in Harbor.
import type { z } from "zod";
import { keysAt } from "../../core/schema-keys.ts";
import { closest } from "../../core/suggest.ts";

/** The tables whose keys Harbor reads ([metadata] and the env tables are free-form). */
const TABLES: readonly string[][] = [[], ["task"], ["agent"], ["verifier"], ["solution"], ["environment"]];

/** `<path>: agent.timout_sec: not a key Harbor reads (did you mean timeout_sec?), ignored`, one per typo. */
export function typoWarnings(data: unknown, path: string, schema: z.ZodType): string[] {
  const out: string[] = [];
  for (const table of TABLES) {
    let at: unknown = data;
    for (const k of table)
      at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[k] : undefined;
    if (at === null || typeof at !== "object" || Array.isArray(at)) continue;
    const known = keysAt(schema, table, data);
    for (const key of Object.keys(at)) {
      if (known.includes(key)) continue;
      const near = closest(key, known);
      if (near !== undefined)
        out.push(
          `${path}: ${[...table, key].join(".")}: not a key Harbor reads (did you mean ${near}?), ignored`,
        );
    }
  }
  return out;
}
