// Per-subject cgroups: where detection finds them (fake cgroup roots for v2, v1, missing controllers,
// a non-root runner), the lines the prefix gets, and the prefix itself against a fake hierarchy (its
// cgroup made, capped and joined; the cgroups of finished subjects removed, a live one kept). The
// escape table's memory-sum and fork-bomb rows show the caps holding for real.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { cgroupLines, detectCgroups } from "../../../lib/isolation/sandbox/cgroup.ts";
import { limitsPrefix } from "../../../lib/isolation/sandbox/limits.ts";
import { tempDir } from "../../support/tmp.ts";

function fakeRoot(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

describe("detectCgroups", () => {
  const cases: { name: string; files: Record<string, string>; uid: number; self?: string; want: unknown }[] =
    [
      {
        name: "v2 with pids and memory delegated",
        files: { "cgroup.controllers": "cpu memory pids\n", "cgroup.subtree_control": "memory pids\n" },
        uid: 0,
        want: { version: 2, parents: ["<root>"] },
      },
      {
        name: "v2 enables the controllers in subtree_control when they are off",
        files: { "cgroup.controllers": "cpu memory pids\n", "cgroup.subtree_control": "" },
        uid: 0,
        want: { version: 2, parents: ["<root>"] },
      },
      {
        name: "v2 without the memory controller",
        files: { "cgroup.controllers": "cpu pids\n", "cgroup.subtree_control": "pids\n" },
        uid: 0,
        want: null,
      },
      {
        name: "v1 pids and memory hierarchies",
        files: { "pids/tasks": "", "memory/tasks": "" },
        uid: 0,
        want: { version: 1, parents: ["<root>/pids", "<root>/memory"] },
      },
      {
        name: "v1 nested in the runner's own memory cgroup (its limits still apply)",
        files: { "pids/tasks": "", "memory/tasks": "", "memory/session/a/tasks": "" },
        self: "8:pids:/\n4:memory:/session/a\n1:cpu:/\n",
        uid: 0,
        want: { version: 1, parents: ["<root>/pids", "<root>/memory/session/a"] },
      },
      {
        name: "v2 nested in the runner's own cgroup when it can have children",
        files: {
          "cgroup.controllers": "memory pids\n",
          "cgroup.subtree_control": "memory pids\n",
          "runner/cgroup.controllers": "memory pids\n",
          "runner/cgroup.subtree_control": "memory pids\n",
        },
        self: "0::/runner\n",
        uid: 0,
        want: { version: 2, parents: ["<root>/runner"] },
      },
      {
        name: "v2 at the root when the runner's own cgroup lacks the controllers",
        files: {
          "cgroup.controllers": "memory pids\n",
          "cgroup.subtree_control": "memory pids\n",
          "runner/cgroup.controllers": "cpu\n",
        },
        self: "0::/runner\n",
        uid: 0,
        want: { version: 2, parents: ["<root>"] },
      },
      { name: "v1 without memory", files: { "pids/tasks": "" }, uid: 0, want: null },
      { name: "nothing mounted", files: {}, uid: 0, want: null },
      {
        name: "a runner that is not root never moves processes",
        files: { "cgroup.controllers": "memory pids\n", "cgroup.subtree_control": "memory pids\n" },
        uid: 1000,
        want: null,
      },
    ];
  for (const c of cases) {
    test(c.name, () => {
      using dir = tempDir("proctor-cg");
      const root = fakeRoot(dir.path, c.files);
      const got = detectCgroups(root, c.uid, c.self ?? "");
      const shown = got && { ...got, parents: got.parents.map((p) => p.replace(root, "<root>")) };
      expect(shown).toEqual(c.want as typeof shown);
    });
  }

  test("v2 writes +pids +memory to subtree_control when they were off", () => {
    using dir = tempDir("proctor-cg");
    const root = fakeRoot(dir.path, { "cgroup.controllers": "memory pids\n", "cgroup.subtree_control": "" });
    detectCgroups(root, 0, "");
    expect(readFileSync(join(root, "cgroup.subtree_control"), "utf8")).toBe("+pids +memory");
  });
});

test("cgroupLines: v2 caps pids, memory and swap in one cgroup; v1 one line per hierarchy", () => {
  const limits = { pids: 300, memoryMiB: 800 };
  const bytes = 800 * 1024 * 1024;
  expect({
    v2: cgroupLines({ version: 2, parents: ["/sys/fs/cgroup"] }, limits),
    v1: cgroupLines({ version: 1, parents: ["/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"] }, limits),
  }).toEqual({
    v2: `/sys/fs/cgroup pids.max=300 memory.max=${bytes} ?memory.swap.max=0`,
    v1: `/sys/fs/cgroup/pids pids.max=300\n/sys/fs/cgroup/memory memory.limit_in_bytes=${bytes} ?memory.memsw.limit_in_bytes=${bytes}`,
  });
});

test("the prefix makes, caps and joins its cgroup, and removes those of finished subjects only", async () => {
  using dir = tempDir("proctor-cg");
  const parent = join(dir.path, "pids");
  mkdirSync(join(parent, "proctor-999999999"), { recursive: true }); // a finished subject's (no such pid)
  mkdirSync(join(parent, `proctor-${process.pid}`)); // a live one's (this test's pid)
  mkdirSync(join(parent, "unrelated"));
  const limits = { pids: 300, memoryMiB: 800 };
  const argv = [...limitsPrefix(limits, null, { version: 2, parents: [parent] }), "/bin/sh", "-c", "echo $$"];
  const r = await run(argv, { env: { PATH: "/usr/bin:/bin" } });
  const pid = r.stdout.trim();
  const mine = join(parent, `proctor-${pid}`);
  expect({
    exit: r.exitCode,
    dirs: readdirSync(parent).sort(),
    pidsMax: readFileSync(join(mine, "pids.max"), "utf8"),
    memoryMax: readFileSync(join(mine, "memory.max"), "utf8"),
    swap: existsSync(join(mine, "memory.swap.max")),
    procs: readFileSync(join(mine, "cgroup.procs"), "utf8"),
  }).toEqual({
    exit: 0,
    dirs: [`proctor-${pid}`, `proctor-${process.pid}`, "unrelated"].sort(),
    pidsMax: "300\n",
    memoryMax: `${800 * 1024 * 1024}\n`,
    swap: false,
    procs: `${pid}\n`,
  });
});
