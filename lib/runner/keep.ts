// --keep DIR: what a run leaves for inspection once its work directory is gone. OUT is copied with
// links kept as links and special files (FIFOs, sockets, devices) skipped, since the runner may be
// root and OUT is the subject's; the call log is read without following a link.
import { cpSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { readRegularFile } from "../grade/out.ts";

const SAFE_NAME = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** The directory under --keep for a case: its name when that is a safe relative path, else its dir name. */
export function keepName(name: string, caseDir: string): string {
  return SAFE_NAME.test(name) && !name.split("/").some((p) => p === "." || p === "..")
    ? name
    : basename(caseDir);
}

/** What one finished case leaves behind. */
export interface KeptRun {
  name: string;
  caseDir: string;
  /** OUT, or null when the subject replaced it with something that is not a directory. */
  out: string | null;
  callLog: string;
  logs: { stdout: string; stderr: string; run: string };
}

/** Copies OUT and the logs to <keep>/<keepName>/ (replacing an earlier copy); returns that directory. */
export function keepRun(keep: string, run: KeptRun): string {
  const dest = resolve(keep, keepName(run.name, run.caseDir));
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  if (run.out)
    cpSync(run.out, join(dest, "out"), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => {
        const st = lstatSync(src);
        return st.isDirectory() || st.isFile() || st.isSymbolicLink();
      },
    });
  writeFileSync(join(dest, "gh-calls.jsonl"), readRegularFile(run.callLog) ?? "");
  writeFileSync(join(dest, "subject.stdout"), run.logs.stdout);
  writeFileSync(join(dest, "subject.stderr"), run.logs.stderr);
  writeFileSync(join(dest, "run.log"), run.logs.run);
  return dest;
}
