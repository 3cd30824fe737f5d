// The sandbox's contract as types only: one subject invocation (SandboxSpec), the limits it runs
// under (SubjectLimits) and a built sandbox (Sandbox). Every file of lib/isolation/sandbox/ shares
// these, so they live apart from the code that builds them (no import cycle through index.ts).

/** Per-subject limits. */
export interface SubjectLimits {
  /** RLIMIT_NPROC: processes and threads of the subject's uid (a fork bomb stops here). */
  pids: number;
  /** RLIMIT_DATA in MiB: each process's heap and private writable mappings; also each tmpfs's size. */
  memoryMiB: number;
}

export type SandboxMechanism = "bwrap" | "unshare" | "sandbox-exec";

/** One subject invocation. */
export interface SandboxSpec {
  /** The only writable host path (absolute). */
  workDir: string;
  /** Where the command starts (inside workDir). */
  cwd: string;
  /** The complete environment: nothing is inherited. */
  env: Record<string, string>;
  /** e.g. ["bash", "<workDir>/case/subject.sh"]; resolved on env.PATH inside. */
  command: string[];
  /**
   * Extra read-only paths visible inside (bwrap and unshare). `inside` must lie under workDir or a
   * private tmpfs (/tmp, /var/tmp, /run): the rest of the system is read-only. The host path must be
   * readable by the subject uid, since binds are made after privileges are dropped: stage it with
   * stageForSubject(). sandbox-exec accepts identity binds (host === inside) only.
   */
  roBinds?: { host: string; inside: string }[];
}

export interface Sandbox {
  mechanism: SandboxMechanism;
  /** uid the subject runs as on the host (null: same as runner). */
  subjectUid: number | null;
  subjectGid: number | null;
  /** What wrap() adds beyond isolation, which the isolation probe checks (absent: nothing). */
  confinement?: { seccomp: boolean; limits: SubjectLimits | null; cgroups: 1 | 2 | null };
  /** The argv (and environment for the spawn itself) that runs spec.command isolated. */
  wrap(spec: SandboxSpec): { argv: string[]; env: Record<string, string> };
}
