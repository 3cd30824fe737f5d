// The compiled multi-call binary, its release archive and the Node/Deno bundles, for tests and
// benchmarks. `.ci/run` builds them before the tests; locally a stale or missing artifact is rebuilt
// once per process, so a test never runs yesterday's code. Builds run one at a time (they share dist/).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { BUNDLES } from "../../scripts/build.ts";
import { BIN, REPO_ROOT } from "./tools.ts";

const DIST = join(REPO_ROOT, "dist");

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    newest = Math.max(newest, st.isDirectory() ? newestSource(path) : st.mtimeMs);
  }
  return newest;
}

function fresh(paths: string[]): boolean {
  const sources = Math.max(newestSource(join(REPO_ROOT, "lib")), newestSource(join(REPO_ROOT, "scripts")));
  return paths.every((p) => existsSync(p) && statSync(p).mtimeMs >= sources);
}

let queue: Promise<unknown> = Promise.resolve();
const memo = new Map<string, Promise<void>>();

/** Runs `bun scripts/build.ts ...flags` unless `outputs` are newer than lib/ and scripts/; once per process. */
function ensureBuilt(flags: string[], outputs: () => string[]): Promise<void> {
  const key = flags.join(" ");
  let done = memo.get(key);
  if (!done) {
    done = queue.then(async () => {
      if (fresh(outputs())) return;
      const r = await run([BIN.bun, join(REPO_ROOT, "scripts/build.ts"), ...flags], { cwd: REPO_ROOT });
      if (r.exitCode !== 0) throw new Error(`bun run build ${key} failed: ${r.stderr}`);
    });
    queue = done.catch(() => undefined);
    memo.set(key, done);
  }
  return done;
}

/** The host platform as release assets name it: linux-x64, darwin-arm64, ... */
export const HOST_PLATFORM = `${process.platform}-${process.arch}`;

/** Path of dist/bin (links gh, gh-shim, grade, ... to the host binary), building it when stale. */
export async function binDir(): Promise<string> {
  await ensureBuilt([], () => [join(DIST, "proctor")]);
  return join(DIST, "bin");
}

/** Path of the host's release archive dist/proctor-<os>-<arch>.tar.gz (with dist/SHA256SUMS). */
export async function hostArchive(): Promise<string> {
  const archive = join(DIST, `proctor-${HOST_PLATFORM}.tar.gz`);
  await ensureBuilt(["--archives"], () => [archive]);
  return archive;
}

/** Path of a tool's Node/Deno bundle, dist/js/<tool>.js, building all bundles when stale. */
export async function bundlePath(tool: string): Promise<string> {
  const path = (t: string) => join(DIST, "js", `${t}.js`);
  await ensureBuilt(["--bundles"], () => BUNDLES.map(path));
  return path(tool);
}
