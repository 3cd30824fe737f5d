// Issue 23's inputs: every file the suite lane reads, given as a FIFO, a link or a file over its cap,
// is refused at once with one line naming the file and the exit code its command documents
// (`suite merge` trials 2; compare and plan --scorecard 3; the suite's own inputs 1), never read.
// Each command runs as a process with a time bound: the old readers blocked on a FIFO forever.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { MAX_CONFIG_BYTES, MAX_DATA_BYTES } from "../../lib/suite/input.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { ADD_REPO, evalsTree } from "./_support.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIFO_WHY = "not a regular file (a FIFO, socket, device or directory is refused)";

const dir = tempDir("suite-inputs");
const at = (name: string) => join(dir.path, name);
let suitePath = "";

beforeAll(async () => {
  const tree = evalsTree(at("evals"));
  tree.task("a", "id: a\nrepo: repo\nprompt: fix add.sh\ncheck: sh test.sh\n", ADD_REPO);
  suitePath = tree.suite("s", "name: s\ntasks: [a]\nvariants:\n  - {name: none, harness: nop}\n");
  // A suite whose variant's settings file is a FIFO, and one whose task.yaml is.
  tree.suite(
    "settings",
    "name: settings\ntasks: [a]\nvariants:\n  - {name: c, harness: claude, settings: fifo.json}\n",
  );
  tree.task("b", "", {});
  tree.suite("fifo-task", "name: fifo-task\ntasks: [b]\nvariants:\n  - {name: none, harness: nop}\n");
  const fifos = [
    at("fifo"),
    join(at("evals"), "suites", "fifo.json"),
    join(at("evals"), "suites", "fifo.yaml"),
    join(at("evals"), "tasks", "b", "task.yaml"),
  ];
  for (const f of fifos) {
    if (f.endsWith("task.yaml")) await run(["rm", "-f", f]);
    const r = await run(["mkfifo", f]);
    if (r.exitCode !== 0) throw new Error(`mkfifo ${f}: ${r.stderr}`);
  }
  writeFileSync(at("real.jsonl"), "");
  symlinkSync(at("real.jsonl"), at("link.jsonl"));
  // Sparse: over each cap without the disk it would take.
  writeFileSync(at("huge.json"), "");
  truncateSync(at("huge.json"), MAX_DATA_BYTES + 1);
  writeFileSync(join(at("evals"), "suites", "huge.yaml"), "");
  truncateSync(join(at("evals"), "suites", "huge.yaml"), MAX_CONFIG_BYTES + 1);
});
afterAll(() => dir[Symbol.dispose]());

async function agentEval(args: string[], extra: Record<string, string> = {}) {
  const env = { ...(process.env as Record<string, string>), ...extra };
  delete env.CI;
  // Bounded: a reader that opens a FIFO blocks until killed here.
  const r = await run([process.execPath, ENTRY, ...args], { env, cwd: dir.path, timeoutMs: 30_000 });
  // --local's own warning comes first; what is left must be the one line.
  const stderr = r.stderr.replace(/^warning: --local .*\n/, "");
  return { exitCode: r.exitCode, timedOut: r.timedOut, stderr };
}

const cases: {
  name: string;
  args: () => string[];
  env?: Record<string, string>;
  exitCode: number;
  stderr: () => string;
}[] = [
  {
    name: "suite merge: a trials file that is a FIFO",
    args: () => ["suite", "merge", suitePath, at("fifo")],
    exitCode: 2,
    stderr: () => `error: Cannot merge "${at("fifo")}": ${FIFO_WHY}\n`,
  },
  {
    name: "suite merge: a trials file that is a link",
    args: () => ["suite", "merge", suitePath, at("link.jsonl")],
    exitCode: 2,
    stderr: () => `error: Cannot merge "${at("link.jsonl")}": a symbolic link (expected the file itself)\n`,
  },
  {
    name: "suite merge: a trials file over the cap",
    args: () => ["suite", "merge", suitePath, at("huge.json")],
    exitCode: 2,
    stderr: () =>
      `error: Cannot merge "${at("huge.json")}": larger than ${MAX_DATA_BYTES} bytes (the cap of this input)\n`,
  },
  {
    name: "suite merge: --history a FIFO",
    args: () => ["suite", "merge", suitePath, at("real.jsonl"), "--history", at("fifo")],
    exitCode: 1,
    stderr: () => `error: Cannot read history "${at("fifo")}": ${FIFO_WHY}\n`,
  },
  {
    name: "suite merge: the suite file a FIFO",
    args: () => ["suite", "merge", join(at("evals"), "suites", "fifo.yaml"), at("real.jsonl")],
    exitCode: 1,
    stderr: () => `error: Cannot read suite "${join(at("evals"), "suites", "fifo.yaml")}": not a file\n`,
  },
  {
    name: "suite: --history a FIFO",
    args: () => ["suite", suitePath, "--local", "--history", at("fifo"), "--trials", at("t1.jsonl")],
    exitCode: 1,
    stderr: () => `error: Cannot read history "${at("fifo")}": ${FIFO_WHY}\n`,
  },
  {
    name: "suite: --history over the cap",
    args: () => ["suite", suitePath, "--local", "--history", at("huge.json"), "--trials", at("t2.jsonl")],
    exitCode: 1,
    stderr: () =>
      `error: Cannot read history "${at("huge.json")}": larger than ${MAX_DATA_BYTES} bytes (the cap of this input)\n`,
  },
  {
    name: "suite: --resume from a FIFO",
    args: () => ["suite", suitePath, "--local", "--resume", "--trials", at("fifo")],
    exitCode: 1,
    stderr: () => `error: Cannot read trials "${at("fifo")}": ${FIFO_WHY}\n`,
  },
  {
    name: "suite: --resume from a link",
    args: () => ["suite", suitePath, "--local", "--resume", "--trials", at("link.jsonl")],
    exitCode: 1,
    stderr: () =>
      `error: Cannot read trials "${at("link.jsonl")}": a symbolic link (expected the file itself)\n`,
  },
  {
    name: "suite: the suite file a FIFO",
    args: () => ["suite", join(at("evals"), "suites", "fifo.yaml"), "--local"],
    exitCode: 1,
    stderr: () => `error: Cannot read suite "${join(at("evals"), "suites", "fifo.yaml")}": not a file\n`,
  },
  {
    name: "suite: the suite file over the cap",
    args: () => ["suite", join(at("evals"), "suites", "huge.yaml"), "--local"],
    exitCode: 1,
    stderr: () =>
      `error: Cannot read suite "${join(at("evals"), "suites", "huge.yaml")}": larger than ${MAX_CONFIG_BYTES} bytes (the cap of this input)\n`,
  },
  {
    name: "suite: a task.yaml that is a FIFO",
    args: () => ["suite", join(at("evals"), "suites", "fifo-task.yaml"), "--local"],
    exitCode: 1,
    stderr: () =>
      `error: suite fifo-task: Cannot read task "${join(at("evals"), "tasks", "b", "task.yaml")}": not a file\n`,
  },
  {
    name: "suite: a variant's settings file that is a FIFO",
    args: () => [
      "suite",
      join(at("evals"), "suites", "settings.yaml"),
      "--local",
      "--trials",
      at("t3.jsonl"),
    ],
    env: { ANTHROPIC_API_KEY: "placeholder" },
    exitCode: 1,
    stderr: () =>
      `error: suite settings: variant c: Cannot read settings "${join(at("evals"), "suites", "fifo.json")}": ${FIFO_WHY}\n`,
  },
  {
    name: "compare: a scorecard that is a FIFO",
    args: () => ["compare", at("fifo"), at("real.jsonl")],
    exitCode: 3,
    stderr: () => `✗ Cannot read scorecard "${at("fifo")}": ${FIFO_WHY}\n`,
  },
  {
    name: "compare: a scorecard over the cap",
    args: () => ["compare", at("huge.json"), at("real.jsonl")],
    exitCode: 3,
    stderr: () =>
      `✗ Cannot read scorecard "${at("huge.json")}": larger than ${MAX_DATA_BYTES} bytes (the cap of this input)\n`,
  },
  {
    name: "plan --scorecard a FIFO",
    args: () => ["plan", "--scorecard", at("fifo")],
    exitCode: 3,
    stderr: () => `✗ Cannot read scorecard "${at("fifo")}": ${FIFO_WHY}\n`,
  },
];

describe("a suite input that is no regular file, or is over its cap, is refused with one line", () => {
  for (const c of cases)
    test.concurrent(c.name, async () => {
      expect(await agentEval(c.args(), c.env)).toEqual({
        exitCode: c.exitCode,
        timedOut: false,
        stderr: c.stderr(),
      });
    });
});
