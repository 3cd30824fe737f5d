// Whether a stream is a person's terminal and may be coloured. Kept apart from the logger
// (lib/core/log.ts, consola) so the command edge can ask without loading consola: gh's start-up pays
// for every module it loads.

type Env = Record<string, string | undefined>;

/** True when decorations and progress make sense: an interactive stream outside CI. */
export function isInteractive(env: Env = process.env, stream: { isTTY?: boolean } = process.stderr): boolean {
  return Boolean(stream.isTTY) && !env.CI;
}

/** Whether to colour: NO_COLOR (any value) turns it off, FORCE_COLOR (not "0") on, else a TTY outside CI. */
export function useColor(env: Env = process.env, stream: { isTTY?: boolean } = process.stderr): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  return isInteractive(env, stream);
}
