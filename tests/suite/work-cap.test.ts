// Issue 23: under Docker a trial's /work is capped (`agent-eval suite --max-work-bytes N`, default
// 1 GiB, holes not counted). An agent that leaves more than the cap in /work ends its trial as an
// infrastructure failure (kind copy) with one line saying why and how to raise the cap; one that
// leaves a 2 GiB sparse file does not, and its check sees the file whole.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { DOCKER_TEST_MS } from "../isolation/docker/_image.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { evalsTree } from "./_support.ts";

setDefaultTimeout(DOCKER_TEST_MS);
const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");

describe("agent-eval suite --max-work-bytes", () => {
  test("over the cap: an infrastructure failure with one line; a sparse file's holes do not count", async () => {
    using dir = tempDir("suite-work-cap");
    const tree = evalsTree(join(dir.path, "evals"));
    tree.task(
      "big",
      'id: big\nrepo: repo\nprompt: leave files\ncheck: test "$(stat -c %s sparse)" = 2147483648\n',
      { README: "x\n" },
    );
    const suite = tree.suite(
      "cap",
      `name: cap
tasks: [big]
control: sparse
variants:
  - {name: sparse, harness: command, command: "truncate -s 2G sparse"}
  - {name: noise, harness: command, command: "head -c 2097152 /dev/urandom > noise && truncate -s 2G sparse"}
`,
    );
    const env = { ...(process.env as Record<string, string>) };
    delete env.CI;
    const trials = join(dir.path, "t.jsonl");
    // As a shard: its trials file is the result, whatever can be scored of it.
    const args = ["suite", suite, "--max-work-bytes", "1048576", "--trials", trials, "--shard", "0/1"];
    const r = await run([process.execPath, ENTRY, ...args], { cwd: dir.path, env });
    const got = readFileSync(trials, "utf8")
      .trim()
      .split("\n")
      .slice(1) // the shard header
      .map((l) => JSON.parse(l))
      .map((t) => ({ variant: t.variant, pass: t.pass, infra: t.infra, error: t.error }))
      .sort((a, b) => b.variant.localeCompare(a.variant));
    expect({ exitCode: r.exitCode, trials: got }).toEqual({
      exitCode: 0,
      trials: [
        { variant: "sparse", pass: true, infra: undefined, error: undefined },
        {
          variant: "noise",
          pass: false,
          infra: "copy",
          error:
            "agent: copy out: /work is over the cap: a trial carries at most 1048576 bytes between phases, holes not counted (--max-work-bytes raises it)",
        },
      ],
    });
  });
});
