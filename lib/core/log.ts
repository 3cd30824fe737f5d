// One stderr logger per tool, built on consola. stdout carries results only, so every level writes
// to stderr. Lines print exactly as given (the glyph is part of the message: `✓ report written`), so a
// tool's stderr reads the same on a terminal and in a test; only the glyph is coloured, and only on
// a TTY outside CI unless NO_COLOR (off) or FORCE_COLOR (on) say otherwise. CONSOLA_LEVEL and
// --verbose still raise the level. Progress lines (lib/core/progress.ts) are shown on a TTY only.
import { type ConsolaInstance, type ConsolaReporter, createConsola } from "consola";

import { useColor } from "./tty.ts";

export { isInteractive, useColor } from "./tty.ts";

type Env = Record<string, string | undefined>;

const GLYPH_COLOURS: Readonly<Record<string, string>> = { "✗": "31", "⚠": "33", "✓": "32", "●": "36" };

/** A consola reporter that writes each message as one plain line; `color` paints a leading glyph. */
export function lineReporter(write: (text: string) => unknown, color: boolean): ConsolaReporter {
  return {
    log(entry) {
      const text = entry.args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
      const glyph = color ? GLYPH_COLOURS[text.charAt(0)] : undefined;
      write(`${glyph ? `\x1b[${glyph}m${text.charAt(0)}\x1b[39m${text.slice(1)}` : text}\n`);
    },
  };
}

/** The logger for one tool, tagged with its name, writing to stderr only. */
export function createLogger(
  tag: string,
  opts: { verbose?: boolean; env?: Env; write?: (text: string) => unknown; isTTY?: boolean } = {},
): ConsolaInstance {
  const env = opts.env ?? process.env;
  const envLevel = Number.parseInt(env.CONSOLA_LEVEL ?? "", 10);
  const level = Number.isFinite(envLevel) ? envLevel : opts.verbose ? 4 : 3;
  const write = opts.write ?? ((text: string) => process.stderr.write(text));
  const tty = { isTTY: opts.isTTY ?? process.stderr.isTTY };
  return createConsola({
    level,
    // Every line counts (a failed pair, a warning): consola's repeat throttling would drop some.
    throttle: 0,
    stdout: process.stderr,
    stderr: process.stderr,
    reporters: [lineReporter(write, useColor(env, tty))],
  }).withTag(tag);
}
