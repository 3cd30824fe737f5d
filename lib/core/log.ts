// One stderr logger per tool. stdout carries results only, so consola (which writes info to stdout
// by default) is created with stdout pointed at stderr. Progress is shown on a TTY and stays quiet in CI;
// CONSOLA_LEVEL and --verbose still raise the level.
import { type ConsolaInstance, createConsola } from "consola";

/** True when decorations and progress make sense: an interactive stderr outside CI. */
export function isInteractive(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.CI;
}

/** The logger for one tool, tagged with its name, writing to stderr only. */
export function createLogger(tag: string, opts: { verbose?: boolean } = {}): ConsolaInstance {
  const envLevel = Number.parseInt(process.env.CONSOLA_LEVEL ?? "", 10);
  const level = Number.isFinite(envLevel) ? envLevel : opts.verbose ? 4 : 3;
  return createConsola({
    level,
    stdout: process.stderr,
    stderr: process.stderr,
    formatOptions: { date: false, colors: isInteractive() },
  }).withTag(tag);
}
