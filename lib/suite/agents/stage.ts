// How an agent's command reaches its phase and how its figures reach the trial: the driver's files
// are staged under a root-owned directory and copied into place by the exec user (so the CLI owns
// its HOME), and the parsed metrics are copied onto the trial with the unreported ones named (null
// is never written as a measured 0). Pure; lib/suite/trial.ts runs the phase.
import type { Trial } from "../scorecard/index.ts";
import type { AgentCommand, AgentMetrics } from "./driver.ts";

/** Where a driver's files are staged in the agent's container (root-owned, readable) before the copy. */
export const STAGE = "/tmp/proctor-files";

/**
 * The agent's argv and files so that the CLI's own directories and files are its user's: the runner
 * writes files as root, so they are staged under `stage` and the phase's shell, running as the exec
 * user, creates `dirs` (0700) and copies each file to its place (its mode, user bits only; 0600 by
 * default) before it execs the CLI.
 */
export function staged(
  inv: Pick<AgentCommand, "argv" | "dirs" | "files">,
  stage = STAGE,
): {
  argv: string[];
  files: { path: string; content: string; mode: number }[];
} {
  if (inv.dirs.length === 0 && inv.files.length === 0) return { argv: inv.argv, files: [] };
  const script = [
    'n=$1; shift; while [ "$n" -gt 0 ]; do mkdir -p -m 700 -- "$1" || exit 126; shift; n=$((n-1)); done',
    'n=$1; shift; while [ "$n" -gt 0 ]; do mkdir -p -m 700 -- "$(dirname -- "$2")" && cp -- "$1" "$2" && chmod "$3" -- "$2" || exit 126; shift 3; n=$((n-1)); done',
    'exec "$@"',
  ].join("; ");
  const files = inv.files.map((f) => ({ path: `${stage}${f.path}`, content: f.content, mode: 0o644 }));
  return {
    argv: [
      "sh",
      "-c",
      script,
      "sh",
      String(inv.dirs.length),
      ...inv.dirs,
      String(files.length),
      // Each file's own mode (a skill's script keeps its exec bit), 0600 when the driver gives none.
      ...files.flatMap((f, i) => [
        f.path,
        inv.files[i]!.path,
        ((inv.files[i]!.mode ?? 0o600) & 0o700).toString(8),
      ]),
      ...inv.argv,
    ],
    files,
  };
}

/** The agent's figures onto the trial; those its CLI did not report are listed in `unreported`. */
export function copyMetrics(trial: Trial, o: AgentMetrics): void {
  const unreported: NonNullable<Trial["unreported"]> = [];
  if (o.costUsd === null) unreported.push("cost");
  if (o.turns === null) unreported.push("turns");
  if (o.tokens === null) unreported.push("tokens");
  if (o.reported.toolCalls === false) unreported.push("toolCalls");
  if (o.reported.toolErrors === false) unreported.push("toolErrors");
  trial.costUSD = o.costUsd ?? 0;
  trial.turns = o.turns ?? 0;
  trial.tokens = o.tokens ?? 0;
  trial.toolErrors = o.toolErrors;
  if (o.reported.toolCalls !== false) trial.toolCalls = o.toolCalls;
  if (unreported.length > 0) trial.unreported = unreported;
}
