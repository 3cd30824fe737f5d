// Writes a trial's transcript beside its log: `<repeat>.transcript.json` (format.ts) and the page a
// reviewer opens, `<repeat>.transcript.html` (page.ts). Every string in it, keys and values, goes
// through the trial log's redaction first (detected credentials, the --pass-env values and the model
// key's), so nothing the agent read or sent reaches the file with a secret in it. A transcript
// that cannot be written is the trial's error, never a crash; the trial keeps its result.
import { dirname, join } from "node:path";
import { ensureDir, writeFileAtomic } from "../../core/fsx.ts";
import type { Transcript } from "./format.ts";
import { renderTranscriptHtml } from "./page.ts";

/** The transcript file beside a trial's log (`.../0.log` -> `.../0.transcript.json`). */
export function transcriptPath(logPath: string): string {
  return `${logPath.replace(/\.log$/, "")}.transcript.json`;
}

/** The page of a transcript file (`.json` -> `.html`). */
export function transcriptPage(transcript: string): string {
  return transcript.replace(/\.json$/, ".html");
}

/** `value` with every string in it (object keys included) passed through `redact`. */
export function redactDeep(value: unknown, redact: (s: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]));
  return value;
}

/**
 * Writes the transcript (redacted by `redact`) and its page under `dir` at `path` (relative, as the
 * trial's `transcript` field keeps it), linking the page to the trial's log `logName` beside it.
 */
export function writeTranscript(
  dir: string,
  path: string,
  t: Transcript,
  redact: (s: string) => string,
  logName?: string,
): void {
  const clean = redactDeep(t, redact) as Transcript;
  const file = join(dir, path);
  ensureDir(dirname(file));
  writeFileAtomic(file, `${JSON.stringify(clean)}\n`);
  const name = path.split("/").at(-1) ?? path;
  writeFileAtomic(
    join(dir, transcriptPage(path)),
    renderTranscriptHtml(clean, { json: name, ...(logName !== undefined ? { log: logName } : {}) }),
  );
}

/**
 * Writes the trial's transcript beside its log (`log.path` relative to `log.dir`); returns its path
 * as the trial keeps it, or undefined when it could not be written (the trial keeps its log and result).
 */
export function saveTranscript(
  log: { dir: string; path: string },
  t: Transcript,
  redact: (s: string) => string,
): string | undefined {
  const path = transcriptPath(log.path);
  try {
    writeTranscript(log.dir, path, t, redact, log.path.split("/").at(-1));
    return path;
  } catch {
    return undefined;
  }
}
