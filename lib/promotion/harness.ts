// The harness digests provenance records (the original hashed evals/harness/{agent_eval.py,
// gh_shim.py,grade.py}). Ours is Proctor itself: the running executable when compiled or bundled,
// else the source files of the driver, the gh shim and the grader. A missing file is exit 4: the
// driver cannot say what ran.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UpstreamError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { invocationMode } from "../gh/stage.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** Source files that decide what a promotion run does, relative to the Proctor checkout. */
export const HARNESS_SOURCES = [
  "scripts/agent-eval.ts",
  "scripts/agent-eval/promotion.ts",
  "lib/promotion/run.ts",
  "lib/gh/shim/gh.ts",
  "lib/grade/runner.ts",
] as const;

/** [{path, sha256}] of what is running. */
export function harnessDigests(): { path: string; sha256: string }[] {
  const mode = invocationMode();
  const files =
    mode === "source"
      ? HARNESS_SOURCES.map((rel) => ({ path: rel, abs: join(ROOT, rel) }))
      : [process.execPath, ...(mode === "bundle" && process.argv[1] ? [process.argv[1]] : [])].map((abs) => ({
          path: abs.split("/").at(-1) ?? abs,
          abs,
        }));
  return files.map(({ path, abs }) => {
    try {
      return { path, sha256: sha256Hex(readFileSync(abs)) };
    } catch {
      throw new UpstreamError(`harness file missing: ${abs}`);
    }
  });
}
