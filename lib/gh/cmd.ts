// The gh-shim tool's command bodies: gh itself (one replayed invocation: its output and exit code, as
// gh would give them) and `lint CASSETTE [--json]`. The gh path loads no consola and no zod (lint
// loads zod lazily): its start-up time is paid by every gh call a subject makes. gh's own edge is
// here because gh's arguments are gh's, not a citty command's: one `✗ gh shim: <msg>` line, exit 1.
import type { ArgsDef, ParsedArgs } from "citty";
import { messageOf } from "../core/errors.ts";
import { writeStderr, writeStdout } from "../core/stdio.ts";
import { runGh } from "./shim/gh.ts";

/** The paths this process may be found under on PATH (so the shim never runs itself as the real gh). */
async function selfPaths(entry = ""): Promise<string[]> {
  const { realpathSync } = await import("node:fs");
  return [process.execPath, process.argv[1] ?? "", entry].flatMap((p) => {
    try {
      return [p, realpathSync(p)];
    } catch {
      return p ? [p] : [];
    }
  });
}

/**
 * gh itself: runs one invocation, writes its output, returns its exit code; never prints a stack.
 * Output goes straight to descriptors 1 and 2 (lib/core/stdio.ts): every gh call a subject makes pays
 * this start, and the streams would cost more than the replay. A reader that stops early (gh ... |
 * head) is not our error. Only a real gh run (EVAL_RECORD=1) needs this shim's own paths.
 */
export async function ghCommand(rawArgs: string[], entry?: string): Promise<number> {
  let code: number;
  try {
    const self = process.env.EVAL_RECORD === "1" ? await selfPaths(entry) : [];
    const out = await runGh(rawArgs, { env: process.env, cwd: process.cwd(), self });
    await writeStdout(out.stdout);
    await writeStderr(out.stderr);
    code = out.exitCode;
  } catch (error) {
    await writeStderr(`✗ gh shim: ${messageOf(error)}\n`);
    code = 1;
  }
  process.exitCode = code;
  return code;
}

/** The flags of `gh-shim lint`. */
export const LINT_ARGS = {
  cassette: { type: "positional", description: "path to cassettes.json", required: true },
  json: { type: "boolean", description: "print one JSON object instead of lines" },
} as const satisfies ArgsDef;

/**
 * `gh-shim lint CASSETTE [--json]`: exit 0 clean, 1 findings. The text ends with one line either way,
 * as `grade lint`'s does: `✓ lint passed: FILE` or `✗ lint failed: N finding(s) in FILE`.
 */
export async function lintCmd(args: ParsedArgs<typeof LINT_ARGS>): Promise<number> {
  const { lintCassetteFile } = await import("./shim/lint.ts");
  const r = lintCassetteFile(args.cassette, { json: args.json });
  const n = r.output.split("\n").length - 1;
  const last =
    r.exitCode === 0
      ? `✓ lint passed: ${args.cassette}`
      : `✗ lint failed: ${n} finding(s) in ${args.cassette}`;
  process.stdout.write(args.json ? r.output : `${r.output}${last}\n`);
  return r.exitCode;
}

/** The flags of `gh-shim record`; the command to run follows `--`. */
export const RECORD_ARGS = {
  command: { type: "positional", required: false, description: "COMMAND... to run, after --" },
  cassette: { type: "string", description: "the cassette to write (default: ./cassettes.json)" },
  gh: { type: "string", description: "the real gh to record (default: the first gh on PATH)" },
  update: { type: "boolean", description: "re-record calls the cassette already holds" },
  "allow-failing": { type: "boolean", description: "record calls that exit non-zero too" },
} as const satisfies ArgsDef;

/**
 * `gh-shim record [flags] -- COMMAND...`: exit 0 written (or nothing new), 1 a call refused (the
 * cassette is unchanged), 2 refused (CI, no real gh, bad cassette, no command).
 */
export async function recordCmd(args: ParsedArgs<typeof RECORD_ARGS>, words?: string[]): Promise<number> {
  const [{ recordCassette }, { createLogger }] = await Promise.all([
    import("./shim/recording.ts"),
    import("../core/log.ts"),
  ]);
  const log = createLogger("gh-shim");
  const cassette = args.cassette ?? "cassettes.json";
  const r = await recordCassette({
    command: words ?? (args._ as string[]) ?? [],
    cassette,
    ...(args.gh === undefined ? {} : { gh: args.gh }),
    update: args.update === true,
    allowFailing: args["allow-failing"] === true,
    env: process.env,
    cwd: process.cwd(),
  });
  if (r.commandExit !== 0) log.warn(`⚠ the command exited ${r.commandExit}`);
  for (const line of r.refusals) log.error(`✗ ${line}`);
  const counts = `${r.added} new, ${r.updated} re-recorded, ${r.unchanged} unchanged`;
  if (r.refusals.length > 0)
    log.error(`✗ ${cassette} is unchanged (${counts}; ${r.refusals.length} refused)`);
  else log.info(`${r.written ? "✓ wrote" : "nothing new for"} ${cassette} (${counts})`);
  return r.refusals.length > 0 ? 1 : 0;
}
