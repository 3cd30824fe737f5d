// Tamper evidence for a Harbor trial: what the agent changed outside its working area that the
// verifier relies on, read from `docker diff` of the agent's container once every process in it was
// frozen. The verifier already runs in a fresh container with fresh /tests, /logs and /solution, so
// these rules catch what a fresh container cannot undo: programs, libraries and config the verifier
// will run. A tampered trial fails whatever its reward. Pure: the caller runs docker.
//
// Where the line is (docs/harbor.md's threat model says the same): the agent may change anything in the task's work
// directory, write in /tmp, its HOME and /logs/agent, and ADD programs and packages; it may not touch
// /tests, /logs or /solution, nor change, remove or shadow a program or library the verifier may run.
import { basename, dirname, posix } from "node:path";

/** One line of `docker diff`: A(dded), C(hanged) or D(eleted), and the path. */
export interface Change {
  kind: "A" | "C" | "D";
  path: string;
}

/** Parses `docker diff` output. The engine prints `K /path` a line; a path with a newline cannot be told apart, so such a line is kept whole and judged as it reads. */
export function parseDiff(text: string): Change[] {
  const out: Change[] = [];
  for (const line of text.split("\n")) {
    const m = /^([ACD]) (\/.*)$/.exec(line);
    if (m) out.push({ kind: m[1] as Change["kind"], path: m[2]! });
  }
  return out;
}

/** What the verifier's environment is: the facts the rules need. */
export interface VerifierFacts {
  /** The task's work directory (the image's WORKDIR): the agent's own. */
  workdir: string;
  /** The verifier's PATH directories, in order. */
  pathDirs: readonly string[];
  /** Program names and absolute paths the verifier's scripts start (testCommands). */
  commands: readonly string[];
  /** Programs of the task image per PATH directory (dir -> names), to tell shadowing; absent: any add there is suspect. */
  programs?: ReadonlyMap<string, ReadonlySet<string>>;
  /** The verifier runs as a named user: /etc/passwd and /etc/group decide who that is. */
  namedUser: boolean;
  /** Paths the runner itself created in the agent's container (e.g. the oracle's /solution). */
  runnerMade?: readonly string[];
}

/** Paths only the runner and the verifier may write; /logs/agent is the agent's. */
const VERIFIER_TREES = ["/tests", "/logs", "/solution"];
const AGENT_LOGS = "/logs/agent";
/** The verifier's interpreter and what every program it starts loads first. */
const INTERPRETERS = ["bash", "sh", "dash", "env"];
const LOADER_CONFIG = ["/etc/ld.so.preload", "/etc/ld.so.conf"];
const LIB_DIRS = [
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libexec",
  "/usr/local/lib",
];
/** Added anywhere under a library directory, these run inside every Python the verifier starts. */
const PYTHON_HOOKS = /(^|\/)(sitecustomize\.py|usercustomize\.py|[^/]*\.pth)$/;
/** At the filesystem root, pytest reads these for tests under /tests (its rootdir and conftest search). */
const ROOT_CONFIG = new Set([
  "conftest.py",
  "pytest.ini",
  ".pytest.ini",
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
]);

const under = (path: string, dir: string) => path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);

/**
 * The changes that make the trial tampered, each as `K /path: why`, sorted; empty when none. A `C`
 * on a directory that only marks a change below it is not a change of its own.
 */
export function tamperedPaths(changes: readonly Change[], f: VerifierFacts): string[] {
  const paths = changes.map((c) => c.path);
  const isParent = (p: string) => paths.some((q) => q !== p && q.startsWith(`${p}/`));
  const runnerMade = f.runnerMade ?? [];
  const wanted = new Set(f.commands);
  const out: string[] = [];
  for (const c of changes) {
    if (c.kind === "C" && isParent(c.path)) continue;
    if (runnerMade.some((r) => under(c.path, r))) continue;
    const why = reason(c, f, wanted);
    if (why !== undefined) out.push(`${c.kind} ${c.path}: ${why}`);
  }
  return out.sort();
}

function reason(c: Change, f: VerifierFacts, wanted: ReadonlySet<string>): string | undefined {
  const p = c.path;
  if (under(p, AGENT_LOGS) || (p === "/logs" && c.kind !== "D")) return undefined;
  if (VERIFIER_TREES.some((t) => under(p, t))) return "the verifier's own files (tests, logs, solution)";
  const dir = dirname(p);
  const name = basename(p);
  if (dir === "/" && ROOT_CONFIG.has(name) && f.workdir !== "/")
    return "pytest configuration at the filesystem root";
  if (LOADER_CONFIG.some((l) => under(p, l) || p.startsWith(`${l}.`))) return "dynamic loader configuration";
  if (f.namedUser && (p === "/etc/passwd" || p === "/etc/group")) return "decides who the verifier's user is";
  const pathAt = f.pathDirs.indexOf(dir);
  if (pathAt >= 0) {
    if (INTERPRETERS.includes(name)) return "the verifier's interpreter";
    if (c.kind !== "A") return "a program on the verifier's PATH";
    if (wanted.has(name)) return "a program the verifier's scripts start";
    if (shadows(name, pathAt, f)) return "shadows a program later on the verifier's PATH";
    return undefined;
  }
  if (["/bin", "/usr/bin"].includes(dir) && INTERPRETERS.includes(name)) return "the verifier's interpreter";
  if (wanted.has(p) && c.kind !== "A") return "a program the verifier's scripts start";
  if (LIB_DIRS.some((l) => under(p, l))) {
    if (c.kind !== "A") return "a library the verifier's programs load";
    if (PYTHON_HOOKS.test(p)) return "runs in every Python the verifier starts";
  }
  return undefined;
}

/** True when `name` added in PATH directory `at` hides a program of the task image in a later one. */
function shadows(name: string, at: number, f: VerifierFacts): boolean {
  if (f.programs === undefined) return true;
  return f.pathDirs.slice(at + 1).some((d) => f.programs!.get(d)?.has(name) === true);
}

const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "in",
  "function",
  "select",
  "time",
  "!",
  "{",
  "}",
  "[[",
  "]]",
  "return",
  "exit",
  "local",
  "export",
  "declare",
  "readonly",
  "set",
  "unset",
  "shift",
  "cd",
  "echo",
  "printf",
  "read",
  "true",
  "false",
  "test",
  "[",
  "trap",
  "wait",
  "eval",
]);
/** Words that run the next word as the program. */
const PREFIXES = new Set([
  "exec",
  "command",
  "sudo",
  "nohup",
  "env",
  "builtin",
  "xargs",
  "timeout",
  "stdbuf",
  "nice",
]);

/**
 * The programs a verifier script starts: each simple command's first word (after assignments and
 * wrappers such as `exec`, `timeout 60`), and what `source`/`.` read; a name or an absolute path. A
 * reading of the text, not a shell: what it cannot see is left to the PATH and library rules.
 */
export function testCommands(script: string): string[] {
  const found = new Set<string>();
  for (const raw of script.split("\n")) {
    const line = raw.replace(/(^|\s)#.*$/, "");
    for (const part of line.split(/&&|\|\||[;|&(){}`]|\$\(/)) {
      const words = part.trim().split(/\s+/).filter(Boolean);
      let i = 0;
      while (i < words.length) {
        const w = words[i]!;
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || /^-/.test(w) || /^\d+[smh]?$/.test(w)) i++;
        else if (PREFIXES.has(w)) {
          found.add(w);
          i++;
        } else break;
      }
      const first = words[i]?.replace(/^["']|["']$/g, "");
      if (first === undefined || first === "") continue;
      if (first === "source" || first === ".") {
        const file = words[i + 1]?.replace(/^["']|["']$/g, "");
        if (file?.startsWith("/")) found.add(posix.normalize(file));
        continue;
      }
      if (KEYWORDS.has(first) || first.includes("$")) continue;
      if (first.startsWith("/")) found.add(posix.normalize(first));
      else if (/^[A-Za-z0-9_.+-]+$/.test(first)) found.add(first);
    }
  }
  return [...found].sort();
}
