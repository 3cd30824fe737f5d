// Issue 23: a shard's digest covers everything that decides its trials, so `suite merge` refuses a
// shard run against a weakened verifier. Each row changes one file of an evals tree (a task.yaml
// task with a local repository, a solution and a judge rubric; a Harbor task; a variant's settings)
// and the digest must change; a copy of the tree at another path must not. Then the attack whole: a
// shard run with the repository's test.sh made to pass everything, the file put back, merge refused.
import { afterAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { suiteDigest } from "../../../lib/suite/shard.ts";
import { runShard } from "../../../lib/suite/shard-run.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { options, TRIALS_NAME, writeSuite } from "./_shards.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures");
const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

const dir = tempDir("suite-digest");
afterAll(() => dir[Symbol.dispose]());

/** An evals tree at `root`: the judge fixture's task and rubrics, a Harbor task, a suite with settings. */
function evalsAt(root: string): string {
  cpSync(join(FIXTURES, "judge", "evals"), root, { recursive: true });
  cpSync(join(FIXTURES, "harbor", "fix-add"), join(root, "tasks", "harbor-fix"), { recursive: true });
  mkdirSync(join(root, "suites"), { recursive: true });
  writeFileSync(join(root, "suites", "a.json"), '{"permissions": {"allow": []}}\n');
  const suite = join(root, "suites", "dig.yaml");
  writeFileSync(
    suite,
    `name: dig
tasks: [fix, harbor-fix]
judge: {url: "http://127.0.0.1:9", wire: anthropic-messages, model: judge-1}
variants:
  - {name: a, harness: claude, settings: a.json}
`,
  );
  return suite;
}

const rows: { name: string; change: (root: string) => void }[] = [
  { name: "the task's repository", change: (r) => appendFileSync(join(r, "tasks/fix/repo/add.sh"), "# x\n") },
  { name: "the task's solution", change: (r) => appendFileSync(join(r, "tasks/fix/solve.sh"), "# x\n") },
  { name: "a judge rubric", change: (r) => appendFileSync(join(r, "rubrics/quality.yaml"), "# x\n") },
  { name: "a variant's settings", change: (r) => writeFileSync(join(r, "suites/a.json"), "{}\n") },
  {
    name: "a Harbor verifier",
    change: (r) => writeFileSync(join(r, "tasks/harbor-fix/tests/test.sh"), "exit 0\n"),
  },
  {
    name: "a file added beside the verifier",
    change: (r) => writeFileSync(join(r, "tasks/harbor-fix/tests/conftest.py"), ""),
  },
  {
    name: "a Harbor environment",
    change: (r) => appendFileSync(join(r, "tasks/harbor-fix/environment/Dockerfile"), "# x\n"),
  },
  {
    name: "a task.toml comment",
    change: (r) => appendFileSync(join(r, "tasks/harbor-fix/task.toml"), "# x\n"),
  },
  {
    name: "a Harbor solution",
    change: (r) => appendFileSync(join(r, "tasks/harbor-fix/solution/solve.sh"), "# x\n"),
  },
  {
    name: "an executable bit",
    change: (r) => chmodSync(join(r, "tasks/harbor-fix/environment/add.sh"), 0o755),
  },
  {
    name: "a link in a task",
    change: (r) => symlinkSync("/etc/hostname", join(r, "tasks/harbor-fix/tests/x")),
  },
];

describe("the digest covers what decides a trial", () => {
  test("each change changes it; the same tree elsewhere does not", () => {
    const base = suiteDigest(loadSuite(evalsAt(join(dir.path, "base"))));
    const changed = Object.fromEntries(
      rows.map((r, i) => {
        const root = join(dir.path, `row-${i}`);
        const suite = evalsAt(root);
        r.change(root);
        return [r.name, suiteDigest(loadSuite(suite)) !== base];
      }),
    );
    const elsewhere = suiteDigest(loadSuite(evalsAt(join(dir.path, "another", "checkout")))) === base;
    expect({ changed, elsewhere }).toEqual({
      changed: Object.fromEntries(rows.map((r) => [r.name, true])),
      elsewhere: true,
    });
  });
});

describe("a shard run against a weakened verifier", () => {
  test("is refused by merge once the verifier is put back (exit 2, one line)", async () => {
    const root = join(dir.path, "weakened");
    const suitePath = writeSuite(join(root, "evals"));
    const testSh = join(root, "evals", "tasks", "t1", "repo", "test.sh");
    const real = readFileSync(testSh, "utf8");
    writeFileSync(testSh, "#!/bin/sh\nexit 0\n");
    const file = join(root, "shard-0", TRIALS_NAME);
    await runShard(loadSuite(suitePath), { index: 0, count: 1 }, options(file));
    writeFileSync(testSh, real);
    const env = { ...(process.env as Record<string, string>) };
    delete env.CI;
    const r = await run([process.execPath, ENTRY, "suite", "merge", suitePath, file], { env });
    expect({
      exitCode: r.exitCode,
      stdout: r.stdout,
      lines: r.stderr.split("\n").length,
      starts: r.stderr.split(" (digest")[0],
    }).toEqual({
      exitCode: 2,
      stdout: "",
      lines: 2,
      starts: `error: Cannot merge "${file}": suite "shardy" (or a task) changed since the shard ran`,
    });
  });
});
