// `gh-shim record -- COMMAND...`: runs a command with this shim first on PATH in record mode and the
// real gh behind it, then merges what was captured into a cassette the replay side and `gh-shim lint`
// accept: --json field lists sorted, failing calls refused unless allowed, an entry already in the
// cassette kept (and its answer checked) unless --update. Captures are redacted by record mode
// (record.ts) before they are kept. The cassette is rewritten once, atomically, or not at all. The
// command gets EVAL_OUT (a temp dir removed afterwards, unless set) so `-- bash subject.sh` just runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { jsonSyntaxWhere, pyJsonDumps } from "../../compat/py/json.ts";
import { ToolError, UsageError } from "../../core/errors.ts";
import { ensureDir, isExecutable, writeFileAtomic } from "../../core/fsx.ts";
import { CassetteError, cassetteCalls, normalizeArgv, readCassetteText } from "../cassette.ts";
import { installGh, stageGh } from "../stage.ts";
import { type Capture, findRealGh } from "./record.ts";

/** What `gh-shim record` was asked to do. */
export interface RecordOptions {
  command: string[];
  cassette: string;
  gh?: string;
  update: boolean;
  allowFailing: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** How a recording went: counts, the refusals (nothing written when there are any), the command's exit. */
export interface RecordReport {
  added: number;
  updated: number;
  unchanged: number;
  refusals: string[];
  commandExit: number;
  written: boolean;
}

type Entry = Record<string, unknown>;

const sameKey = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Merges captures into a cassette root (pure). Each capture's argv is normalised (--json fields
 * sorted); a failing one is refused unless `allowFailing`; an exact (non-prefix) entry with the same
 * argv is replaced under `update`, else kept, and a different answer is refused.
 */
export function mergeCaptures(
  root: Entry,
  captures: readonly Capture[],
  opts: { update: boolean; allowFailing: boolean; cassette: string },
): { root: Entry; added: number; updated: number; unchanged: number; refusals: string[] } {
  const calls = [...cassetteCalls(root)];
  const counts = { added: 0, updated: 0, unchanged: 0 };
  const refusals: string[] = [];
  for (const c of captures) {
    const argv = normalizeArgv(c.argv);
    const shown = `gh ${argv.join(" ")}`;
    if (c.exit !== 0 && !opts.allowFailing) {
      refusals.push(
        `${shown} exited ${c.exit}: not recorded (pass --allow-failing to record a failing call)`,
      );
      continue;
    }
    const entry: Entry = { argv, stdout: c.stdout, stderr: c.stderr, exit: c.exit };
    const at = calls.findIndex((e) => {
      const x = e as Entry;
      return (
        x && x.match !== "prefix" && Array.isArray(x.argv) && sameKey(normalizeArgv(x.argv as string[]), argv)
      );
    });
    if (at < 0) {
      calls.push(entry);
      counts.added++;
    } else if (opts.update) {
      calls[at] = entry;
      counts.updated++;
    } else {
      const old = calls[at] as Entry;
      const differs = (["stdout", "stderr", "exit"] as const).filter(
        (k) => (old[k] ?? (k === "exit" ? 0 : "")) !== entry[k],
      );
      if (differs.length === 0) counts.unchanged++;
      else
        refusals.push(
          `${shown}: the answer differs from calls[${at}] in ${opts.cassette} (${differs.join(", ")}); pass --update to re-record it`,
        );
    }
  }
  return { root: { ...root, version: root.version ?? 1, calls }, ...counts, refusals };
}

/** The cassette to merge into: its parsed root, or a new one. A broken file is refused up front (exit 2). */
function readTarget(path: string): Entry {
  if (!existsSync(path)) return { version: 1, calls: [] };
  let text = "";
  try {
    text = readCassetteText(path);
    const root = JSON.parse(text) as Entry;
    cassetteCalls(root);
    return root;
  } catch (error) {
    const why = error instanceof CassetteError ? error.message : `not valid JSON: ${jsonSyntaxWhere(text)}`;
    throw new ToolError(`Cannot record into "${path}": ${why}`, 2, { cause: error });
  }
}

/** The real gh: --gh PATH when given (must be executable), else the first gh on PATH; else exit 2. */
function realGh(opts: RecordOptions): string {
  if (opts.gh !== undefined) {
    const gh = resolve(opts.cwd, opts.gh);
    if (!isExecutable(gh) || !statSync(gh).isFile())
      throw new UsageError(`Cannot use --gh "${opts.gh}": expected an executable file`);
    return gh;
  }
  const gh = findRealGh(opts.env.PATH, [process.execPath]);
  if (!gh) throw new UsageError("Cannot record: no real gh on PATH (install gh, or name it with --gh PATH)");
  return gh;
}

/** Runs the command through the recording shim, merges its captures, writes the cassette. */
export async function recordCassette(opts: RecordOptions): Promise<RecordReport> {
  if (opts.env.CI === "true" || opts.env.GITHUB_ACTIONS === "true")
    throw new UsageError(
      "Cannot record under CI: gh-shim record runs the real gh, which needs the network and credentials; record locally and commit the cassette",
    );
  if (opts.command.length === 0) throw new UsageError("Cannot record: name the command after --");
  const cassette = resolve(opts.cwd, opts.cassette);
  const target = readTarget(cassette);
  const gh = realGh(opts);
  const work = mkdtempSync(join(tmpdir(), "proctor-record-"));
  try {
    const shimBin = ensureDir(join(work, "shim"));
    const realBin = ensureDir(join(work, "real"));
    const stage = await stageGh();
    // The shim must not take its own wrapper for the real gh: the comment carries a shim mark.
    if (stage.kind === "script")
      writeFileSync(join(shimBin, "gh"), (stage.wrapper ?? "").replace("\n", "\n# gh-shim record\n"), {
        mode: 0o755,
      });
    else installGh(stage, shimBin);
    symlinkSync(gh, join(realBin, "gh"));
    const captured = join(work, "captured.json");
    const env: Record<string, string | undefined> = {
      ...opts.env,
      PATH: [shimBin, realBin, opts.env.PATH ?? ""].join(delimiter),
      EVAL_RECORD: "1",
      EVAL_CASSETTES: captured,
      EVAL_STATE_DIR: ensureDir(join(work, "state")),
      // A subject writes its artifacts somewhere: a throw-away OUT unless the caller names one.
      EVAL_OUT: opts.env.EVAL_OUT ?? ensureDir(join(work, "out")),
    };
    const [file, ...args] = opts.command as [string, ...string[]];
    const child = spawnSync(file, args, { cwd: opts.cwd, env, stdio: "inherit" });
    if (child.error) throw new UsageError(`Cannot run "${file}": ${child.error.message}`);
    const commandExit = child.status ?? 1;
    const captures = existsSync(captured)
      ? (cassetteCalls(JSON.parse(readCassetteText(captured))) as Capture[])
      : [];
    const merged = mergeCaptures(target, captures, { ...opts, cassette });
    const changed = merged.added + merged.updated > 0;
    const written = merged.refusals.length === 0 && changed;
    if (written) {
      ensureDir(resolve(cassette, ".."));
      writeFileAtomic(cassette, `${pyJsonDumps(merged.root, { indent: 2 })}\n`);
    }
    return {
      added: merged.added,
      updated: merged.updated,
      unchanged: merged.unchanged,
      refusals: merged.refusals,
      commandExit,
      written,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
