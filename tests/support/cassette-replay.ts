// A case cassette as facts (originals.md 7.4 T2): what each exact entry replays to through the shim
// (in-process runGh, no record mode, no replay cache) next to what it recorded, and the rules a
// cassette of a good case keeps: version 1, no duplicate entries, every recorded exit 0, and every
// --json payload parsable as JSON.
import { readFileSync } from "node:fs";
import { argvKey, hasJsonFlag, normalizeArgv } from "../../lib/gh/cassette.ts";
import { runGh } from "../../lib/gh/shim/gh.ts";
import type { ShimOutput } from "../../lib/gh/shim/issues.ts";
import { Recorder } from "../../lib/gh/shim/record.ts";
import { REPO_ROOT } from "./tools.ts";

/** One cassette entry as written. */
export interface CassetteEntry {
  argv: string[];
  match?: string;
  stdout?: string;
  stderr?: string;
  exit?: number;
}

/** Reads cassettes.json as written (no normalization). */
export function readCassette(path: string): { version: unknown; calls: CassetteEntry[] } {
  const data = JSON.parse(readFileSync(path, "utf8")) as { version?: unknown; calls?: CassetteEntry[] };
  return { version: data.version, calls: data.calls ?? [] };
}

/** Replays every non-prefix entry of the cassette at `path`; `recorded` is what each entry says. */
export async function replayExact(path: string): Promise<{ replayed: ShimOutput[]; recorded: ShimOutput[] }> {
  const exact = readCassette(path).calls.filter((c) => c.match !== "prefix");
  const replayed: ShimOutput[] = [];
  for (const c of exact) {
    replayed.push(
      await runGh(c.argv, {
        env: { EVAL_CASSETTES: path },
        cwd: REPO_ROOT,
        self: [],
        recorder: new Recorder(),
        replay: { cacheDir: null },
      }),
    );
  }
  const recorded = exact.map((c) => ({
    stdout: c.stdout ?? "",
    stderr: c.stderr ?? "",
    exitCode: c.exit ?? 0,
  }));
  return { replayed, recorded };
}

/** The T2 rules as facts: all empty lists and version 1 for a good cassette. */
export function cassetteRules(path: string): {
  version: unknown;
  duplicates: string[];
  nonZeroExits: string[];
  unparsableJson: string[];
} {
  const { version, calls } = readCassette(path);
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const nonZeroExits: string[] = [];
  const unparsableJson: string[] = [];
  for (const c of calls) {
    const key = `${c.match === "prefix" ? "prefix" : "exact"} ${argvKey(normalizeArgv(c.argv))}`;
    if (seen.has(key)) duplicates.push(key);
    seen.add(key);
    if ((c.exit ?? 0) !== 0) nonZeroExits.push(c.argv.join(" "));
    if (hasJsonFlag(c.argv)) {
      try {
        JSON.parse(c.stdout ?? "");
      } catch {
        unparsableJson.push(c.argv.join(" "));
      }
    }
  }
  return { version, duplicates, nonZeroExits, unparsableJson };
}
