// The one way a process ends on a signal: exit like a shell would (130 for SIGINT, 143 for SIGTERM)
// so the exit hooks still run (they kill subjects' process groups and remove work dirs). Once a
// listener is installed Node no longer terminates by itself; this is the only process.exit in lib/
// besides the command edge, and commands reach it only through their signal hooks.

/** The shell's exit code for a signal: 128 + its number (SIGINT 130, SIGTERM 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1;
}

/** Ends the process as a shell would after `signal`. */
export function exitOnSignal(signal: NodeJS.Signals): never {
  process.exit(signalExitCode(signal));
}

/** On the first SIGINT or SIGTERM, exits as a shell would (run-eval: the exit hooks clean up). */
export function exitOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => exitOnSignal(signal));
}
