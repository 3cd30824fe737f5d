// The error classes and the exit-code table every tool shares. lib/ throws these; only the
// entry edge (lib/core/cli.ts, called from scripts/*.ts) turns them into process.exitCode. Each tool keeps
// its originals' vocabulary (gh-shim/grade/idd-lint 0/1/2, gi-runlog 0/2/3/4, agent-eval 0/2/3/4), so
// an error carries its own code and a tool may remap a class at its edge.

/** Base class: a failure the user can act on, with the exit code the tool should end with. */
export class ToolError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
    this.exitCode = exitCode;
  }
}

/** Bad command line or a refused invocation (exit 2). */
export class UsageError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 2, options);
    this.name = "UsageError";
  }
}

/** A file the user gave us is unreadable or does not match its format (exit 3 by default). */
export class ConfigError extends ToolError {
  constructor(message: string, options?: ErrorOptions & { exitCode?: number }) {
    super(message, options?.exitCode ?? 3, options);
    this.name = "ConfigError";
  }
}

/** Something outside our input stopped the work: disk, a child process, a remote (exit 4). */
export class UpstreamError extends ToolError {
  constructor(message: string, options?: ErrorOptions & { exitCode?: number }) {
    super(message, options?.exitCode ?? 4, options);
    this.name = "UpstreamError";
  }
}

/** Exit codes by meaning, shared vocabulary across tools. 1 stays "assertion failed / unexpected". */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  invalid: 3,
  cannotComplete: 4,
} as const satisfies Record<string, number>;

/** The message of any thrown value, without a stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** What each errno a file read can end in means, in the words every tool's refusal uses. */
const FILE_ERRNO: Readonly<Record<string, string>> = {
  ENOTDIR: "not a directory (the path or one of its components)",
  EISDIR: "a directory, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "a symbolic link where none is followed",
  EMFILE: "too many open files",
  ENAMETOOLONG: "the name is too long",
  ENOTEMPTY: "a directory that is not empty",
  EEXIST: "already exists",
};

/**
 * Why a file could not be read, in words, never Node's raw text (`ENOENT: no such file or directory,
 * scandir 'x'`): every tool refuses a missing input as `Cannot read <what> "<path>": no such file` (or
 * `no such directory`, for `kind` "directory").
 */
export function fileProblem(error: unknown, kind: "file" | "directory" = "file"): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return `no such ${kind}`;
  if (code !== undefined && FILE_ERRNO[code] !== undefined) return FILE_ERRNO[code] as string;
  const message = messageOf(error).split("\n")[0] as string;
  // `EXDEV: cross-device link not permitted, rename 'a' -> 'b'`: the words, not the code or the call.
  return message.replace(/^E[A-Z]+: /, "").replace(/, \w+ '.*$/, "");
}
