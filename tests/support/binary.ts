// The compiled multi-call binary for tests and benchmarks. `.ci/run` builds it before the tests;
// locally a stale or missing binary is rebuilt once, so a test never runs yesterday's code.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/proc.ts";
import { BIN, REPO_ROOT } from "./tools.ts";

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestSource(path) : st.mtimeMs);
  }
  return newest;
}

let built: Promise<string> | undefined;

/** Path of dist/bin (links gh, gh-shim, grade, ... to the host binary), building it when stale. */
export function binDir(): Promise<string> {
  built ??= (async () => {
    const binary = join(REPO_ROOT, "dist", "proctor");
    const fresh =
      existsSync(binary) &&
      statSync(binary).mtimeMs >=
        Math.max(newestSource(join(REPO_ROOT, "lib")), newestSource(join(REPO_ROOT, "scripts")));
    if (!fresh) {
      const r = await run([BIN.bun, join(REPO_ROOT, "scripts/build.ts")], { cwd: REPO_ROOT });
      if (r.exitCode !== 0) throw new Error(`bun run build failed: ${r.stderr}`);
    }
    return join(REPO_ROOT, "dist", "bin");
  })();
  return built;
}
