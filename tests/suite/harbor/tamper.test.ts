// The pure parts of a Harbor trial's integrity: `docker diff` read, where the line between the agent's
// own work and tampering is drawn (tamper.ts), the programs a verifier script starts, the verifier's
// user resolved, and the tree copied into its fresh container.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Change,
  parseDiff,
  tamperedPaths,
  testCommands,
  type VerifierFacts,
} from "../../../lib/suite/harbor/tamper.ts";
import { resolveUser, verifierTree } from "../../../lib/suite/harbor/verifier.ts";
import { tempDir } from "../../support/tmp.ts";

test("docker diff: one change a line; anything else is not a change", () => {
  expect(parseDiff("C /app\nA /app/x\nD /etc/motd\nnoise\n\nA relative\n")).toEqual([
    { kind: "C", path: "/app" },
    { kind: "A", path: "/app/x" },
    { kind: "D", path: "/etc/motd" },
  ]);
});

const FACTS: VerifierFacts = {
  workdir: "/app",
  pathDirs: ["/usr/local/bin", "/usr/bin", "/bin"],
  commands: ["pytest", "sh", "/app/run_tests.sh", "/opt/check/verify"],
  programs: new Map([
    ["/usr/local/bin", new Set(["uv"])],
    ["/usr/bin", new Set(["python3", "sh", "bash", "grep", "uv"])],
    ["/bin", new Set(["sh", "bash"])],
  ]),
  namedUser: false,
};

const ch = (line: string): Change => parseDiff(line)[0]!;

test.each<{ name: string; changes: string[]; facts?: Partial<VerifierFacts>; expected: string[] }>([
  {
    name: "the agent's own work: the work dir, /tmp, HOME, /logs/agent, a new program and package",
    changes: [
      "C /app",
      "C /app/main.py",
      "A /app/new.py",
      "D /app/old.py",
      "A /tmp/x",
      "A /root/.history",
      "C /logs",
      "A /logs/agent/trace.json",
      "A /usr/local/bin/mytool",
      "A /usr/local/lib/python3.12/dist-packages/pkg/__init__.py",
    ],
    expected: [],
  },
  {
    name: "the verifier's own trees, whatever the kind",
    changes: ["A /tests", "A /tests/test.sh", "A /logs/verifier", "A /solution/solve.sh", "D /logs"],
    expected: [
      "A /logs/verifier: the verifier's own files (tests, logs, solution)",
      "A /solution/solve.sh: the verifier's own files (tests, logs, solution)",
      "A /tests/test.sh: the verifier's own files (tests, logs, solution)",
      "A /tests: the verifier's own files (tests, logs, solution)",
      "D /logs: the verifier's own files (tests, logs, solution)",
    ],
  },
  {
    name: "the interpreter, on the PATH or in /bin and /usr/bin",
    changes: ["A /usr/local/bin/bash", "C /usr/bin/bash", "A /usr/local/bin/env"],
    expected: [
      "A /usr/local/bin/bash: the verifier's interpreter",
      "A /usr/local/bin/env: the verifier's interpreter",
      "C /usr/bin/bash: the verifier's interpreter",
    ],
  },
  {
    name: "programs on the PATH: changed, removed, shadowing, or started by test.sh",
    changes: [
      "C /usr/bin/grep",
      "D /usr/bin/uv",
      "A /usr/local/bin/python3",
      "A /usr/local/bin/pytest",
      "A /usr/bin/brand-new",
    ],
    expected: [
      "A /usr/local/bin/pytest: a program the verifier's scripts start",
      "A /usr/local/bin/python3: shadows a program later on the verifier's PATH",
      "C /usr/bin/grep: a program on the verifier's PATH",
      "D /usr/bin/uv: a program on the verifier's PATH",
    ],
  },
  {
    name: "an add in a later PATH directory shadows nothing",
    changes: ["A /bin/uv"],
    expected: [],
  },
  {
    name: "the task image's programs unknown: every add on the PATH is suspect",
    changes: ["A /usr/local/bin/mytool"],
    facts: { programs: undefined },
    expected: ["A /usr/local/bin/mytool: shadows a program later on the verifier's PATH"],
  },
  {
    name: "libraries changed, Python start-up hooks added, loader configuration",
    changes: [
      "C /usr/lib/x86_64-linux-gnu/libc.so.6",
      "D /usr/lib/python3/dist-packages/_pytest/main.py",
      "A /usr/local/lib/python3.12/dist-packages/zz.pth",
      "A /usr/lib/python3/dist-packages/sitecustomize.py",
      "A /etc/ld.so.preload",
      "A /etc/ld.so.conf.d/evil.conf",
    ],
    expected: [
      "A /etc/ld.so.conf.d/evil.conf: dynamic loader configuration",
      "A /etc/ld.so.preload: dynamic loader configuration",
      "A /usr/lib/python3/dist-packages/sitecustomize.py: runs in every Python the verifier starts",
      "A /usr/local/lib/python3.12/dist-packages/zz.pth: runs in every Python the verifier starts",
      "C /usr/lib/x86_64-linux-gnu/libc.so.6: a library the verifier's programs load",
      "D /usr/lib/python3/dist-packages/_pytest/main.py: a library the verifier's programs load",
    ],
  },
  {
    name: "pytest configuration at the root, and a script test.sh runs by path",
    changes: [
      "A /conftest.py",
      "A /pytest.ini",
      "A /output.txt",
      "C /app/run_tests.sh",
      "C /opt/check/verify",
    ],
    expected: [
      "A /conftest.py: pytest configuration at the filesystem root",
      "A /pytest.ini: pytest configuration at the filesystem root",
      "C /app/run_tests.sh: a program the verifier's scripts start",
      "C /opt/check/verify: a program the verifier's scripts start",
    ],
  },
  {
    name: "who the verifier is: /etc/passwd only matters for a named user",
    changes: ["C /etc/passwd", "C /etc/group"],
    expected: [],
  },
  {
    name: "a named verifier user: /etc/passwd and /etc/group decide who it is",
    changes: ["C /etc/passwd", "C /etc/group", "C /etc/shadow"],
    facts: { namedUser: true },
    expected: [
      "C /etc/group: decides who the verifier's user is",
      "C /etc/passwd: decides who the verifier's user is",
    ],
  },
  {
    name: "what the runner made for the oracle is not the agent's",
    changes: ["A /solution", "A /solution/solve.sh"],
    facts: { runnerMade: ["/solution"] },
    expected: [],
  },
])("tamper: $name", ({ changes, facts, expected }) => {
  expect(tamperedPaths(changes.map(ch), { ...FACTS, ...facts })).toEqual(expected);
});

test("a path with a newline forges only more changes, never fewer", () => {
  const text = "A /app/x\nA /etc/ld.so.preload\nC /usr/bin/grep\n";
  expect(tamperedPaths(parseDiff(text), FACTS)).toEqual([
    "A /etc/ld.so.preload: dynamic loader configuration",
    "C /usr/bin/grep: a program on the verifier's PATH",
  ]);
});

test.each<{ name: string; script: string; expected: string[] }>([
  {
    name: "a Terminal-Bench test.sh",
    script: [
      "#!/bin/bash",
      "apt-get update && apt-get install -y curl",
      "curl -LsSf http://127.0.0.1:9/install.sh | sh",
      "source $HOME/.local/bin/env",
      "uvx -p 3.13 -w pytest==8.4.1 pytest /tests/test_outputs.py -rA",
      "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi",
    ].join("\n"),
    expected: ["apt-get", "curl", "sh", "uvx"],
  },
  {
    name: "wrappers, assignments, paths and sourced files",
    script:
      "PYTHONPATH=/app timeout 60 /opt/venv/bin/python -m pytest\nexec sudo -u tester ./run\n. /opt/venv/bin/activate\ncd /app && make test # not a command: # make",
    // Over-inclusive where a wrapper takes a value (sudo -u tester): a name too many only adds a rule.
    expected: ["/opt/venv/bin/activate", "/opt/venv/bin/python", "exec", "make", "sudo", "tester", "timeout"],
  },
])("testCommands: $name", ({ script, expected }) => {
  expect(testCommands(script)).toEqual(expected);
});

test.each<{ user: string; expected: { uid: number; gid: number } | null }>([
  { user: "root", expected: { uid: 0, gid: 0 } },
  { user: "tester", expected: { uid: 1002, gid: 1003 } },
  { user: "1002", expected: { uid: 1002, gid: 1003 } },
  { user: "4242", expected: { uid: 4242, gid: 0 } },
  { user: "tester:staff", expected: { uid: 1002, gid: 50 } },
  { user: "ghost", expected: null },
  { user: "tester:nogroup-here", expected: null },
])("the verifier's user $user", ({ user, expected }) => {
  const passwd = "root:x:0:0:root:/root:/bin/bash\ntester:x:1002:1003::/home/tester:/bin/sh\n";
  const group = "root:x:0:\nstaff:x:50:\ntester:x:1003:\n";
  expect(resolveUser(user, passwd, group)).toEqual(expected);
});

test("the verifier's tree: tests/'s contents (never nested) owned by its user, fresh /logs and /solution", () => {
  using dir = tempDir("verifier-tree");
  mkdirSync(join(dir.path, "data"));
  writeFileSync(join(dir.path, "test.sh"), "echo 1 > /logs/verifier/reward.txt\n", { mode: 0o755 });
  writeFileSync(join(dir.path, "data", "cases.json"), "[]");
  const t = verifierTree(dir.path, { uid: 1002, gid: 1003 });
  const entries: string[] = [];
  for (let at = 0; at + 512 <= t.length; ) {
    const h = t.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const field = (o: number, n: number) =>
      h
        .subarray(o, o + n)
        .toString("latin1")
        .replace(/\0.*$/s, "");
    const size = Number.parseInt(field(124, 12), 8);
    entries.push(
      `${field(0, 100)} ${Number.parseInt(field(108, 8), 8)}:${Number.parseInt(field(116, 8), 8)} ${field(100, 8).slice(-3)}`,
    );
    at += 512 + Math.ceil(size / 512) * 512;
  }
  expect(entries).toEqual([
    "tests/ 1002:1003 755",
    "logs/ 0:0 755",
    "logs/verifier/ 1002:1003 755",
    "logs/agent/ 1002:1003 755",
    "solution/ 0:0 755",
    "tests/data/ 1002:1003 755",
    "tests/data/cases.json 1002:1003 644",
    "tests/test.sh 1002:1003 755",
  ]);
});
