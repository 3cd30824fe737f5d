// A failed `docker build` in one line: the failing step and its instruction, its exit code and the
// last thing it printed, with terminal escapes stripped. Reads both builders' output: the legacy
// builder's `Step 3/4 : RUN ...` (stdout) and `returned a non-zero code: 100` (stderr), and BuildKit's
// plain progress (` > [3/4] RUN ...:` and `exit code: 100`). Pure: the caller names the task.

/** Terminal escapes (CSI, OSC, charset and other nF, two-byte) and control characters but newline and tab. */
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]+[0-~]|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

/** `text` without terminal escape codes or control characters (newlines kept). */
export function stripEscapes(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(ESCAPES, "");
}

/** Whitespace folded to single spaces, and at most `max` characters. */
function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

/** The client's notices, not the build's words. */
const NOISE = [
  /^DEPRECATED:/,
  /^\s+(BuildKit is currently disabled|environment-variable|Install the buildx|https?:\/\/)/,
  /^Sending build context/,
  /^\s*-+>\s/,
  /^Removing intermediate container/,
  /^The command '.*' returned a non-zero code/,
  /^-{6,}$/,
];
const noise = (l: string) => l.trim() === "" || NOISE.some((re) => re.test(l));

/** The step that failed, as written in the log. */
interface Step {
  step: string;
  instruction: string;
  /** What the step printed (BuildKit's timestamps taken off). */
  output: string[];
}

/** The legacy builder's last `Step N/M : INSTR` and what it printed after. */
function legacyStep(lines: string[]): Step | undefined {
  const at = lines.findLastIndex((l) => /^Step \d+\/\d+ : /.test(l));
  if (at < 0) return undefined;
  const m = /^Step (\d+\/\d+) : (.*)$/.exec(lines[at]!)!;
  const output = lines.slice(at + 1).filter((l) => !noise(l));
  return { step: m[1]!, instruction: m[2]!, output };
}

/** BuildKit's error block: ` > [stage 3/4] RUN ...:` and the lines up to `------`. */
function buildkitStep(lines: string[]): Step | undefined {
  const at = lines.findLastIndex((l) => /^\s*>\s*\[[^\]]*\d+\/\d+\]\s/.test(l));
  if (at < 0) return undefined;
  const m = /^\s*>\s*\[(?:[^\]\s]+\s+)?(\d+\/\d+)\]\s+(.*?):?\s*$/.exec(lines[at]!)!;
  const end = lines.findIndex((l, i) => i > at && /^-{6,}$/.test(l.trim()));
  const output = lines
    .slice(at + 1, end < 0 ? undefined : end)
    .map((l) => l.replace(/^(#\d+\s+)?\d+(\.\d+)?\s/, ""))
    .filter((l) => !noise(l));
  return { step: m[1]!, instruction: m[2]!, output };
}

/** The failing step, if the log names one. */
export function failedStep(
  stdout: string,
  stderr: string,
): { step: string; instruction: string } | undefined {
  const s = buildkitStep(stripEscapes(stderr).split("\n")) ?? legacyStep(stripEscapes(stdout).split("\n"));
  return s && { step: s.step, instruction: oneLine(s.instruction, 120) };
}

/**
 * One line for a failed build: `step 3/4 (RUN apt-get install -y foo) exited 100: E: Unable to locate
 * package foo`; without a step (a Dockerfile that does not parse), the engine's own last line.
 */
export function buildFailure(r: { exitCode: number | null; stdout: string; stderr: string }): string {
  const out = stripEscapes(r.stdout).split("\n");
  const err = stripEscapes(r.stderr).split("\n");
  const step = buildkitStep(err) ?? legacyStep(out);
  const code = /returned a non-zero code: (\d+)|exit code: (\d+)/.exec(err.join("\n"));
  const exit = code ? (code[1] ?? code[2]) : undefined;
  const lastErr = err
    .filter((l) => !noise(l))
    .at(-1)
    ?.replace(/^(ERROR: )?(failed to solve: )?(Error response from daemon: )?/, "");
  if (step === undefined) return oneLine(lastErr ?? `exit ${r.exitCode ?? "unknown"}`, 300);
  const said = exit !== undefined ? step.output.at(-1) : lastErr;
  const head = `step ${step.step} (${oneLine(step.instruction, 120)}) ${exit !== undefined ? `exited ${exit}` : "failed"}`;
  return said ? `${head}: ${oneLine(said, 200)}` : head;
}
