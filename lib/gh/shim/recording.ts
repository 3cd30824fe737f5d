// `gh-shim record -- COMMAND...`: runs a command with this shim first on PATH in record mode, then
// merges what was captured into a cassette the replay side and `gh-shim lint` accept: --json field
// lists sorted, failing calls refused unless allowed, an entry already in the cassette kept (and its
// answer checked) unless --update. Only calls this process observed are recorded: the shim asks it to
// run each call (observer.ts), and the captures stay in its memory, never in a file the command could
// write. Everything written is redacted, the cassette's earlier entries included, and re-scanned: a
// credential that survives is a refusal. The cassette is rewritten once, atomically, or not at all.
// The command gets EVAL_OUT (a temp dir removed afterwards, unless set) so `-- bash subject.sh` just runs.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { jsonSyntaxWhere, pyJsonDumps } from "../../compat/py/json.ts";
import { ToolError, UsageError } from "../../core/errors.ts";
import { ensureDir, isExecutable, writeFileAtomic } from "../../core/fsx.ts";
import { findSecrets, redactText } from "../../redact/index.ts";
import { CassetteError, cassetteCalls, normalizeArgv, readCassetteText } from "../cassette.ts";
import { installGh, stageGh } from "../stage.ts";
import { RECORDER_ENV } from "./_channel.ts";
import { observeGh } from "./observer.ts";
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

/** The cassette's bytes, or null when there is none. */
const bytesOf = (path: string): Buffer | null => (existsSync(path) ? readFileSync(path) : null);

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

/** Every string of a cassette root redacted (keys and values, at any depth); the names of what went. */
export function redactRoot(value: unknown, found: string[] = []): unknown {
  if (typeof value === "string") {
    const r = redactText(value);
    for (const f of r.findings) found.push(f.detector);
    return r.text;
  }
  if (Array.isArray(value)) return value.map((v) => redactRoot(v, found));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redactRoot(k, found), redactRoot(v, found)]),
    );
  return value;
}

/** Runs the command and resolves with its exit code (a signal counts as 1). */
function runCommand(
  command: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<number> {
  const [file, ...args] = command as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: "inherit" });
    child.on("error", (e) => reject(new UsageError(`Cannot run "${file}": ${e.message}`)));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/** Runs the command through the recording shim, merges what the recorder observed, writes the cassette. */
export async function recordCassette(opts: RecordOptions): Promise<RecordReport> {
  if (opts.env.CI === "true" || opts.env.GITHUB_ACTIONS === "true")
    throw new UsageError(
      "Cannot record under CI: gh-shim record runs the real gh, which needs the network and credentials; record locally and commit the cassette",
    );
  if (opts.command.length === 0) throw new UsageError("Cannot record: name the command after --");
  const cassette = resolve(opts.cwd, opts.cassette);
  const before = bytesOf(cassette);
  const target = readTarget(cassette);
  const gh = realGh(opts);
  // Private to this user (mkdtemp: 0700): the recorder's socket and the shim.
  const work = mkdtempSync(join(tmpdir(), "proctor-record-"));
  try {
    const shimBin = ensureDir(join(work, "shim"));
    const stage = await stageGh();
    // The shim must not take its own wrapper for the real gh: the comment carries a shim mark.
    if (stage.kind === "script")
      writeFileSync(join(shimBin, "gh"), (stage.wrapper ?? "").replace("\n", "\n# gh-shim record\n"), {
        mode: 0o755,
      });
    else installGh(stage, shimBin);
    const socket = join(work, "recorder.sock");
    const observer = await observeGh(socket, gh, opts.env, opts.cwd);
    let commandExit: number;
    try {
      commandExit = await runCommand(opts.command, opts.cwd, {
        ...opts.env,
        PATH: [shimBin, opts.env.PATH ?? ""].join(delimiter),
        EVAL_RECORD: "1",
        // Required in record mode, never read under the recorder: no file holds a capture.
        EVAL_CASSETTES: join(work, "recorded-in-memory.json"),
        [RECORDER_ENV]: socket,
        EVAL_STATE_DIR: ensureDir(join(work, "state")),
        // A subject writes its artifacts somewhere: a throw-away OUT unless the caller names one.
        EVAL_OUT: opts.env.EVAL_OUT ?? ensureDir(join(work, "out")),
      });
    } finally {
      await observer.close();
    }
    const merged = mergeCaptures(target, observer.captures, { ...opts, cassette });
    const changed = merged.added + merged.updated > 0;
    const refusals = [...merged.refusals];
    // This process is the cassette's only writer: one the command wrote to is put back as it was.
    const after = bytesOf(cassette);
    if (!(after === null ? before === null : before?.equals(after))) {
      if (before === null) rmSync(cassette, { force: true });
      else writeFileAtomic(cassette, before);
      refusals.push(
        `${cassette} changed while the command ran: it is put back as it was and nothing is recorded`,
      );
    }
    let text = "";
    if (refusals.length === 0 && changed) {
      text = `${pyJsonDumps(redactRoot(merged.root), { indent: 2 })}\n`;
      const left = [...new Set(findSecrets(text).map((f) => f.detector))];
      if (left.length > 0)
        refusals.push(
          `a credential (${left.join(", ")}) survives redaction in what would be written to ${cassette}`,
        );
    }
    const written = refusals.length === 0 && changed;
    if (written) {
      ensureDir(resolve(cassette, ".."));
      writeFileAtomic(cassette, text);
    }
    return {
      added: merged.added,
      updated: merged.updated,
      unchanged: merged.unchanged,
      refusals,
      commandExit,
      written,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
