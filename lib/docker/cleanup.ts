// What a run owns and how it is removed: containers carry the label `proctor.run=<runId>`, scratch
// dirs are named `proctor-docker.<runId>.<random>` under the scratch root. Removal goes by that label
// and that exact prefix only, so one run never deletes what another run owns. The signal hook is the
// one place in lib/docker that ends the process: once a SIGINT/SIGTERM listener is installed Node no
// longer terminates by itself, so the hook must exit (130/143) after cleaning up.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRunId, type DockerCall, dockerCli, RUN_LABEL } from "./engine.ts";

const PREFIX = "proctor-docker.";

/** Makes a scratch directory owned by `runId` (its name carries the run id). */
export function makeScratchDir(runId: string, root = tmpdir()): string {
  checkRunId(runId);
  return mkdtempSync(join(root, `${PREFIX}${runId}.`));
}

/** Scratch dirs of `runId` under `root` (exact run id match: "r1" never matches "r10"). */
export function scratchDirsOf(runId: string, root = tmpdir()): string[] {
  const want = `${PREFIX}${runId}.`;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(want) && !n.slice(want.length).includes("."))
    .map((n) => join(root, n));
}

/** Names of every container (running or not) labelled with `runId`. */
export async function containersOf(runId: string, call: DockerCall = dockerCli()): Promise<string[]> {
  checkRunId(runId);
  const r = await call(["ps", "-a", "--filter", `label=${RUN_LABEL}=${runId}`, "--format", "{{.Names}}"], {
    timeoutMs: 60_000,
  });
  if (r.exitCode !== 0) return [];
  return r.stdout.split("\n").filter(Boolean);
}

/** Force-removes the run's containers and scratch dirs; returns what it removed. */
export async function removeRunResources(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string } = {},
): Promise<{ containers: string[]; dirs: string[] }> {
  const call = o.call ?? dockerCli();
  const containers = await containersOf(runId, call);
  if (containers.length > 0) await call(["rm", "-f", ...containers], { timeoutMs: 120_000 });
  const dirs = scratchDirsOf(runId, o.scratchRoot);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  return { containers, dirs };
}

/** Containers being started right now, so a signal waits for them before sweeping by label. */
const starting = new Map<string, Set<Promise<unknown>>>();

/** Tracks a `docker run` in flight for `runId` until it settles. */
export function trackStart<T>(runId: string, p: Promise<T>): Promise<T> {
  let set = starting.get(runId);
  if (!set) {
    set = new Set();
    starting.set(runId, set);
  }
  const s = set;
  s.add(p);
  void p.then(
    () => s.delete(p),
    () => s.delete(p),
  );
  return p;
}

/**
 * On SIGINT/SIGTERM: wait for in-flight starts of `runId`, remove its containers and scratch dirs,
 * then exit 130 (INT) or 143 (TERM). Returns a function that uninstalls the hook.
 */
export function installSignalCleanup(
  runId: string,
  o: { call?: DockerCall; scratchRoot?: string } = {},
): () => void {
  checkRunId(runId);
  let busy = false;
  const handler = (signal: NodeJS.Signals) => {
    if (busy) return;
    busy = true;
    const code = signal === "SIGINT" ? 130 : 143;
    void (async () => {
      try {
        await Promise.allSettled([...(starting.get(runId) ?? [])]);
        await removeRunResources(runId, o);
      } finally {
        process.exit(code);
      }
    })();
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}
