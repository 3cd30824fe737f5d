// `agent-eval tasks check`'s bad command lines: one `error:` line, exit 1, nothing on stdout, before
// any engine or container is touched.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");

test.each([
  { name: "no directory", args: [], line: "missing the task directories: agent-eval tasks check DIR..." },
  {
    name: "a directory without Harbor tasks",
    args: [join(FIXTURES, "fix-add", "tests")],
    line: `Cannot check "${join(FIXTURES, "fix-add", "tests")}": no task.toml in it nor in its folders`,
  },
  {
    name: "a bad --image-map",
    args: [join(FIXTURES, "fix-add"), "--image-map", "ubuntu"],
    line: '--image-map: expected REF=LOCAL (e.g. ubuntu:24.04=mirror/ubuntu:24.04), got "ubuntu"',
  },
  {
    name: "a bad --network",
    args: [join(FIXTURES, "fix-add"), "--network", "host"],
    line: '--network: expected none or bridge, got "host"',
  },
])("tasks check refuses $name", async ({ args, line }) => {
  const r = await run([process.execPath, ENTRY, "tasks", "check", ...args]);
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
    exitCode: 1,
    stdout: "",
    stderr: `error: ${line}\n`,
  });
});
