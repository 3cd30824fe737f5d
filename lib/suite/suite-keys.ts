// The newer original's suite keys beyond name, tasks and variants, checked once the file parsed:
// `k` within 1..repeats, `seed`, `gate` and `judge` as written, the matrix's harnesses known and their
// settings inside the suite's directory, and the suite's `graders` (rubrics under the evals root).
// Split from suite.ts, which owns the file's schema and the loading; this file imports nothing of it.
import { dirname } from "node:path";
import type { GateFile } from "./gate.ts";
import { type AnyGrader, checkGraders, type GraderSpec } from "./graders/spec.ts";
import type { JudgeFile } from "./judge/config.ts";
import type { MatrixFile } from "./matrix.ts";
import { failure, resolveWithin, type YamlSource } from "./yaml.ts";

/** The keys as parsed from suite.yaml. */
export interface RichKeysFile {
  repeats?: number;
  k?: number;
  seed?: number;
  gate?: GateFile;
  judge?: JudgeFile;
  matrix?: MatrixFile;
  graders?: GraderSpec[];
}

/** The keys a loaded suite carries (each only when written; k only when not 0). */
export interface RichKeys {
  seed?: number;
  k?: number;
  gate?: GateFile;
  judge?: JudgeFile;
  matrix?: MatrixFile;
}

/**
 * Checks the keys of `file` (at `dir`, with the `harnesses` a suite knows). Throws ConfigError, one
 * line naming the file, line:column and field: k above repeats, an unknown matrix harness, matrix
 * settings outside the suite's directory, a bad suite grader.
 */
export function richKeys(
  src: YamlSource,
  owner: string,
  file: RichKeysFile,
  dir: string,
  harnesses: readonly string[],
): { keys: RichKeys; graders: AnyGrader[] } {
  const keys: RichKeys = {};
  const repeats = file.repeats || 1;
  if (file.k !== undefined && file.k !== 0) {
    if (file.k > repeats)
      throw failure(src, owner, ["k"], `k: expected between 1 and repeats (${repeats}), got ${file.k}`);
    keys.k = file.k;
  }
  if (file.seed !== undefined) keys.seed = file.seed;
  if (file.gate !== undefined) keys.gate = file.gate;
  if (file.judge !== undefined) keys.judge = file.judge;
  if (file.matrix !== undefined) {
    const checked = file.matrix.harnesses.map((h, i) => {
      const at = ["matrix", "harnesses", i];
      if (!harnesses.includes(h.harness)) {
        const known = harnesses.map((n) => JSON.stringify(n)).join(", ");
        throw failure(
          src,
          owner,
          [...at, "harness"],
          `matrix.harnesses[${i}].harness: expected one of ${known}, got ${JSON.stringify(h.harness)}`,
        );
      }
      if (h.settings === undefined || h.settings === "") return h;
      const inside = resolveWithin(dir, h.settings);
      if (!inside.ok)
        throw failure(
          src,
          owner,
          [...at, "settings"],
          `matrix harness ${h.harness}: settings "${h.settings}": ${inside.why}`,
        );
      return { ...h, settings: inside.path };
    });
    keys.matrix = { ...file.matrix, harnesses: checked };
  }
  // Rubric paths are relative to the suite's directory and stay under the evals root (its parent).
  const graders = checkGraders(src, owner, file.graders ?? [], { root: dirname(dir), base: dir });
  return { keys, graders };
}
