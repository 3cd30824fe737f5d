// Measuring a child process honestly: its own peak memory, CPU and wall time. A child started with
// spawnSync from this (large) bench process reports the PARENT's peak as its own ru_maxrss (Linux
// keeps the high-water mark across fork/vfork + exec: a child once said 428 MB where /usr/bin/time said
// 25 MB), so process.resourceUsage() inside the child is not its figure. GNU time forks the command
// from its own small process and reads the command's rusage with wait4: %M is THAT child's peak.
// Every bench row that reports a child's memory goes through runChild().
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** GNU time (Debian package "time"); the bench refuses to guess without it. */
export const TIME = "/usr/bin/time";

export interface ChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Wall time around the spawn, ms. */
  wallMs: number;
  /** The child's own user + system CPU, ms (wait4). */
  cpuMs: number;
  /** The child's own peak resident set, MB (wait4's ru_maxrss, GNU time %M in KiB). */
  maxRssMB: number;
}

/** Parses GNU time's `-f "%M %U %S"` line: KiB, user seconds, system seconds. */
export function parseTimeLine(text: string): { maxRssMB: number; cpuMs: number } {
  const line = text.trim().split("\n").at(-1) ?? "";
  const m = /^(\d+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line);
  if (!m) throw new Error(`Cannot read ${TIME}'s report: expected "KiB user sys", got "${line}"`);
  return { maxRssMB: Number(m[1]) / 1024, cpuMs: (Number(m[2]) + Number(m[3])) * 1000 };
}

/** Runs argv to completion under GNU time; the figures are the child's own, never this process's. */
export function runChild(
  argv: string[],
  o: { env?: NodeJS.ProcessEnv; input?: string; maxBuffer?: number } = {},
): ChildRun {
  if (!existsSync(TIME))
    throw new Error(`Cannot measure a child: ${TIME} is missing (apt-get install -y time)`);
  const report = join(tmpdir(), `proctor-bench-time.${process.pid}.${Math.random().toString(36).slice(2)}`);
  try {
    const t0 = performance.now();
    const r = spawnSync(TIME, ["-o", report, "-f", "%M %U %S", "--", ...argv], {
      encoding: "utf8",
      env: o.env ?? process.env,
      input: o.input,
      maxBuffer: o.maxBuffer ?? 256 * 1024 * 1024,
    });
    const wallMs = performance.now() - t0;
    if (r.error) throw r.error;
    const figures = parseTimeLine(readFileSync(report, "utf8"));
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, wallMs, ...figures };
  } finally {
    rmSync(report, { force: true });
  }
}
