// The isolation proof: a probe that runs in the subject's own sandbox invocation, just before it,
// reports which namespaces it is in, its uid, the interfaces it sees and whether it can reach a TCP
// server the runner holds open on the host's 127.0.0.1, then execs the subject in the same process.
// Inside a new network namespace 127.0.0.1 is the sandbox's own loopback, so that connection must
// fail; the runner first connects itself (the control) so a blocked result means the sandbox blocked
// it, not that the server was down. No packet ever leaves the host's loopback. The probe also writes
// a token into the work dir, which the host must see: the subject's output has to reach the runner.
//
// Why the subject cannot forge it: the report is the head of the run's stdout, ended by a line
// holding a nonce, and the probe writes all of it before it execs the subject. A pipe is FIFO and
// nothing the subject runs exists before that exec, so whatever the subject prints comes after the
// probe's end line; the runner reads the report only up to the FIRST end line and hands the rest on
// as the subject's stdout. A probe that dies early writes no end line and execs nothing (no report,
// no subject: not ok). Connections to the server are counted by the runner for the whole run, so a
// subject that reaches it spoils the proof too. The probe runs in the very process tree (namespaces,
// uid, mounts) the subject gets, which a second invocation could only assume.
//
// Fail closed before the subject: the runner passes its own namespace ids, and the probe refuses to
// exec the subject (exit 125) when it shares one with the runner, runs as uid 0, reached the host, or
// does not see the seccomp filter and rlimits the sandbox promises (Sandbox.confinement).
//
// Cost: bash builtins except one readlink (one fork and exec); /proc/self/status and /proc/self/limits
// are read by `read` loops; the egress attempt is a redirection on `:` in the probe's own shell; the
// report is ~20 small writes.
import { randomBytes } from "node:crypto";
import { readlinkSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { readRegular } from "../../core/confined.ts";
import { messageOf } from "../../core/errors.ts";
import { run } from "../../core/proc.ts";
import { NAMESPACES, PROBE, PROBE_MARK, type ProbeReport, parseReport, splitReport } from "./_probe.ts";
import type { Sandbox, SandboxMechanism, SandboxSpec } from "./spec.ts";

export { NAMESPACES, PROBE_MARK } from "./_probe.ts";

/** What isolation was in force for a run; written to OUT/sandbox.json. */
export const IsolationProofSchema = z.object({
  version: z.literal(1),
  mechanism: z.enum(["bwrap", "unshare", "sandbox-exec"]),
  namespaces: z.array(z.string()),
  uid: z.number().int(),
  interfaces: z.array(z.string()),
  egress: z.object({ target: z.string(), blocked: z.boolean(), detail: z.string() }),
  /** The seccomp filter and rlimits the probe saw in force (absent: not reported, e.g. macOS). */
  confinement: z
    .object({ seccomp: z.boolean(), pids: z.string(), dataKiB: z.string() })
    .optional()
    .describe("seccomp filter and rlimits (ulimit -u, ulimit -d) seen by the probe"),
  ok: z.boolean(),
  /** Why ok is false (empty when ok). */
  problems: z.array(z.string()).optional(),
});
export type IsolationProof = z.infer<typeof IsolationProofSchema>;

function hostNamespaces(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of NAMESPACES) {
    try {
      out[n] = readlinkSync(`/proc/self/ns/${n}`);
    } catch {
      // no /proc (macOS)
    }
  }
  return out;
}

function listen(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let count = 0;
  const server = createServer((s) => {
    count++;
    s.destroy();
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      resolvePromise({ server, port, accepted: () => count });
    });
  });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const s = connect({ host: "127.0.0.1", port }, () => {
      s.destroy();
      resolvePromise(true);
    });
    s.once("error", () => resolvePromise(false));
  });
}

/** The parts of a finished run the judge reads (a lib/core/proc.ts ProcResult fits). */
export interface ProbedRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
}

/** The judgement of one probed run. */
export interface ProbeVerdict {
  proof: IsolationProof;
  /** The run's stdout after the probe's report: the subject's own output. */
  stdout: string;
  /** True when the probe finished and exec'd the command (false: it never ran). */
  started: boolean;
}

/** One armed probe: wrap the subject's command with it, run that through the sandbox, judge the run. */
export interface IsolationProbe {
  /** The command that runs the probe and then execs `command` (empty: the probe alone). */
  command(command: string[]): string[];
  /** Judges a finished run (or a run that could not start: pass the error). Closes the server. */
  judge(result: ProbedRun | { error: unknown }): ProbeVerdict;
  /** Stops the loopback server (judge does it too; safe to call twice). */
  close(): void;
}

/**
 * Arms the probe for one run in `spec.workDir`: starts the loopback server and checks it with the
 * control connection. Run `sandbox.wrap({ ...spec, command: probe.command(subject) })`, then judge.
 */
export async function openProbe(
  sandbox: Sandbox,
  spec: Omit<SandboxSpec, "command">,
): Promise<IsolationProbe> {
  const mechanism: SandboxMechanism = sandbox.mechanism;
  const linux = mechanism !== "sandbox-exec";
  const { server, port, accepted } = await listen();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    server.close();
  };
  const target = `127.0.0.1:${port} (host loopback)`;
  let control = false;
  try {
    control = await reachable(port);
  } catch {
    control = false;
  }
  const before = accepted();
  const token = randomBytes(8).toString("hex");
  const nonce = randomBytes(8).toString("hex");
  const host = hostNamespaces();
  const mark = join(spec.workDir, PROBE_MARK);

  const judge = (result: ProbedRun | { error: unknown }): ProbeVerdict => {
    let failure = "";
    let split = { complete: false, report: "", rest: "" };
    if ("error" in result) failure = `probe could not start: ${messageOf(result.error)}`;
    else {
      split = splitReport(result.stdout, nonce);
      if (!split.complete)
        failure = `probe did not finish (exited ${result.exitCode ?? result.signal}): ${result.stderr.trim().slice(0, 300)}`;
    }
    let shared = false;
    try {
      shared = readRegular(mark, { maxBytes: 4096 }).toString("utf8") === token;
    } catch {
      // not written, or not where the host sees it
    }
    try {
      rmSync(mark, { force: true });
    } catch {
      // replaced by a directory: the work dir goes soon anyway
    }
    const connectedLate = accepted() > before;
    close();

    const report = parseReport(split.report);
    const { namespaces: inside, uid, interfaces, egress: egressText, refused } = report;
    const namespaces = NAMESPACES.filter((n) => inside[n] && host[n] && inside[n] !== host[n]);
    const connected = egressText.includes("CONNECTED") || connectedLate;
    const blocked = control && !connected && split.complete;
    const detail = !control
      ? "control failed: the runner itself could not reach the probe server"
      : connected
        ? "the probe reached the host's loopback server"
        : egressText || "no result from the probe";
    const problems: string[] = [];
    if (failure) problems.push(failure);
    if (!shared) problems.push("a file written in the work dir inside did not appear in the host's work dir");
    if (uid <= 0) problems.push(uid === 0 ? "the subject runs as uid 0" : "the probe reported no uid");
    if (!blocked) problems.push(`egress not shown blocked: ${detail}`);
    if (linux) {
      for (const n of NAMESPACES) if (!namespaces.includes(n)) problems.push(`not in a new ${n} namespace`);
      const foreign = interfaces.filter((i) => i !== "lo");
      if (foreign.length > 0) problems.push(`interfaces other than lo: ${foreign.join(", ")}`);
      if (interfaces.length === 0) problems.push("the probe saw no interface list");
    }
    problems.push(...confinementProblems(sandbox, report, split.complete));
    if (refused !== null && problems.length === 0)
      problems.push(`the probe refused to start the subject: ${refused}`);
    return {
      proof: {
        version: 1,
        mechanism,
        namespaces: [...namespaces],
        uid,
        interfaces,
        egress: { target, blocked, detail },
        ...(linux && split.complete
          ? { confinement: { seccomp: report.seccomp === 2, pids: report.nproc, dataKiB: report.data } }
          : {}),
        ok: problems.length === 0,
        problems,
      },
      stdout: split.rest,
      started: split.complete && refused === null,
    };
  };

  return {
    command: (command) => [
      "/bin/bash",
      "--norc",
      "--noprofile",
      "-c",
      PROBE,
      "proctor-probe",
      String(port),
      token,
      spec.workDir,
      NAMESPACES.flatMap((n) => host[n] ?? []).join(" "),
      nonce,
      ...wanted(sandbox),
      ...command,
    ],
    judge,
    close,
  };
}

/** The probe's "must be in force" arguments: seccomp (1 or -), RLIMIT_NPROC, RLIMIT_DATA in KiB. */
function wanted(sandbox: Sandbox): string[] {
  const want = sandbox.confinement;
  const limits = want?.limits;
  return [
    want?.seccomp ? "1" : "-",
    limits ? String(limits.pids) : "-",
    limits ? String(limits.memoryMiB * 1024) : "-",
  ];
}

/** What the sandbox promised (seccomp filter, rlimits) and the probe did not see; fail closed. */
function confinementProblems(sandbox: Sandbox, report: ProbeReport, complete: boolean): string[] {
  const want = sandbox.confinement;
  if (!want || !complete) return [];
  const problems: string[] = [];
  if (want.seccomp && report.seccomp !== 2) problems.push("the seccomp filter was not in force");
  if (want.limits) {
    const pids = String(want.limits.pids);
    const data = String(want.limits.memoryMiB * 1024);
    if (report.nproc !== pids || report.data !== data)
      problems.push(
        `limits not in force: processes ${report.nproc || "?"} (want ${pids}), data ${report.data || "?"} KiB (want ${data})`,
      );
  }
  return problems;
}

/** Runs the probe alone inside the sandbox (same workDir, cwd and env as a subject) and judges it. */
export async function proveIsolation(
  sandbox: Sandbox,
  spec: Omit<SandboxSpec, "command">,
): Promise<IsolationProof> {
  const probe = await openProbe(sandbox, spec);
  try {
    const { argv, env } = sandbox.wrap({ ...spec, command: probe.command([]) });
    let result: ProbedRun | { error: unknown };
    try {
      result = await run(argv, { env, timeoutMs: 20_000 });
    } catch (error) {
      result = { error };
    }
    return probe.judge(result).proof;
  } finally {
    probe.close();
  }
}
