// The LocalRunner of `--local` (originals.md §6.4): TESTING ONLY, no isolation at all. Each trial gets
// a temp dir `proctor-suite-*` with the repository copied (regular files and directories only) into
// work/; every phase runs on this host in work/ with the host's environment. Files a driver wants at
// an absolute path outside the trial dir (/etc/...) are re-rooted under <trial>/root, and the
// variant's settings are also exported as HALO_SETTINGS_FILE, as the original's local runner did.
// The agent reaches its model through the model proxy on a loopback port of the trial's own
// (Layout.model), which puts the real key on its requests as under Docker; the agent's environment
// holds the placeholder instead of the key's variable. That keeps the key out of what the agent
// prints, writes and sends, not out of its reach: it runs as this user, beside this process, whose
// environment (/proc/<pid>/environ) and files it can read. Setup and check keep the host's environment.
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { ensureDir, writeFileAtomic } from "../core/fsx.ts";
import { ProcError, run } from "../core/proc.ts";
import type { PhaseResult, PhaseSpec, SuiteRunner, Workspace } from "./contract.ts";
import { bridgedUrl, type ModelProxy, startModelProxy } from "./model-proxy.ts";

/** A trial's directory on the host: work/ is /work, home/ the agent's HOME; its model proxy. */
export interface LocalWorkspace extends Workspace {
  work: string;
  home: string;
  /** Listening from prepare to dispose, routed to the model during an agent phase only. */
  proxy: ModelProxy;
}

/** The loud line every --local run prints on stderr and the Markdown scorecard carries. */
export const LOCAL_WARNING =
  "warning: --local runs setup, agent and check on this host WITHOUT any isolation (testing only)";

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    const src = join(from, entry);
    const st = lstatSync(src);
    if (st.isDirectory()) copyTree(src, join(to, entry));
    else if (st.isFile()) copyFileSync(src, join(to, entry));
    // symlinks and special files are not copied: a repository must not reach outside itself
  }
}

/** Where `path` (a container path) lands on the host for workspace `ws`. */
export function localPath(ws: LocalWorkspace, path: string): string {
  if (!isAbsolute(path)) return join(ws.work, path);
  const r = relative(ws.dir, path);
  if (r !== "" && !r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r)) return path;
  if (path === "/work" || path.startsWith("/work/")) return join(ws.work, path.slice("/work".length));
  return join(ws.dir, "root", path);
}

async function exec(ws: LocalWorkspace, argv: string[], spec: PhaseSpec, env: Record<string, string>) {
  try {
    const r = await run(argv, {
      cwd: ws.work,
      env,
      timeoutMs: spec.timeoutMs,
      ...(spec.stdin !== undefined ? { input: spec.stdin } : {}),
    });
    return {
      exitCode: r.exitCode,
      stdout: r.stdout,
      stderr: r.stderr,
      timedOut: r.timedOut,
      durationMs: r.durationMs,
    };
  } catch (error) {
    if (!(error instanceof ProcError)) throw error;
    // A missing command is the command's failure (exit 127, as a shell says), not the host's.
    return { exitCode: 127, stdout: "", stderr: error.message, timedOut: false, durationMs: 0 };
  }
}

/** The LocalRunner: the Docker runner's PhaseRunner shape, with no isolation. */
export function localRunner(): SuiteRunner {
  const local = (ws: Workspace) => ws as LocalWorkspace;
  return {
    async prepare(runId, repoDir) {
      const dir = mkdtempSync(join(tmpdir(), "proctor-suite-"));
      const proxy = await startModelProxy({ loopback: true });
      const ws: LocalWorkspace = { runId, dir, work: join(dir, "work"), home: join(dir, "home"), proxy };
      try {
        if (repoDir !== undefined) copyTree(repoDir, ws.work);
        ensureDir(ws.work);
      } catch (error) {
        await proxy.close();
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      return ws;
    },
    layout: (wsIn) => {
      const ws = local(wsIn);
      return { work: ws.work, home: ws.home, stage: join(ws.dir, "stage"), model: ws.proxy.address };
    },
    async runPhase(wsIn, spec): Promise<PhaseResult> {
      const ws = local(wsIn);
      const host: Record<string, string | undefined> = { ...process.env };
      // The agent gets the placeholder, not the key's variable, unless --pass-env named it (the user's choice).
      const keyEnv = spec.model?.credential?.keyEnv;
      if (keyEnv !== undefined && !(spec.secretEnvNames ?? []).includes(keyEnv)) delete host[keyEnv];
      const env: Record<string, string> = { ...(host as Record<string, string>), ...spec.env };
      for (const f of spec.files ?? []) {
        const at = localPath(ws, f.path);
        ensureDir(dirname(at));
        writeFileAtomic(at, f.content, { mode: f.mode ?? 0o644 });
        if (/settings/i.test(f.path)) env.HALO_SETTINGS_FILE = at;
      }
      if (spec.model) {
        env.PROCTOR_MODEL_URL = bridgedUrl(ws.proxy.address, spec.model.url);
        ws.proxy.route(spec.model);
      }
      try {
        return await runCommands(ws, spec, env);
      } finally {
        ws.proxy.route(undefined);
      }
    },
    async dispose(ws) {
      await local(ws).proxy.close();
      rmSync(ws.dir, { recursive: true, force: true });
    },
  };
}

/** The phase's commands one after another, until one fails or times out. */
async function runCommands(
  ws: LocalWorkspace,
  spec: PhaseSpec,
  env: Record<string, string>,
): Promise<PhaseResult> {
  const commands = spec.commands ?? [spec.argv];
  let last: PhaseResult = {
    exitCode: 0,
    stdout: "",
    stderr: "",
    timedOut: false,
    durationMs: 0,
    commandIndex: 0,
  };
  for (const [i, argv] of commands.entries()) {
    last = { ...(await exec(ws, argv, spec, env)), commandIndex: i };
    if (last.exitCode !== 0 || last.timedOut) break;
  }
  return last;
}
