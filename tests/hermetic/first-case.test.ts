// The docs' "Write your first case", verbatim: the fenced commands between its first-case markers
// (README.md or docs/, tests/docs/_blocks.ts) run as one bash script in a fresh directory, with
// `proctor` the tool from source and a stand-in gh (a script that answers the one call the section
// records; never the network).
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { sectionCommands } from "../docs/_blocks.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { openTmp } from "./support.ts";

const STAND_IN_GH = `#!/bin/sh
if [ "$*" = "issue view 7 --json title,state" ]; then
  printf '{"state":"OPEN","title":"Add a dark mode"}\\n'
  exit 0
fi
printf 'stand-in gh: unexpected call: %s\\n' "$*" >&2
exit 4
`;

test("the README's first case, command by command, scaffolds, records, lints and runs green", async () => {
  using dir = tempDir("first-case");
  using tmp = openTmp();
  const bin = join(dir.path, "bin");
  const repo = join(dir.path, "repo");
  mkdirSync(bin);
  mkdirSync(repo);
  writeFileSync(
    join(bin, "proctor"),
    `#!/bin/sh\nexec '${BIN.bun}' '${join(REPO_ROOT, "scripts", "proctor.ts")}' "$@"\n`,
    {
      mode: 0o755,
    },
  );
  writeFileSync(join(bin, "gh"), STAND_IN_GH, { mode: 0o755 });
  const script = sectionCommands("first-case");
  const r = await run(["bash", "-euo", "pipefail", "-c", script], {
    cwd: repo,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: process.env.HOME ?? "/", TMPDIR: tmp.path },
    timeoutMs: 300_000,
  });
  const caseDir = join(repo, "evals", "cases", "my-skill", "first-case");
  expect({
    exitCode: r.exitCode,
    stdout: r.stdout.split("\n").filter((l) => /^(✓|✗|\/)/.test(l)),
    cassette: JSON.parse(readFileSync(join(caseDir, "cassettes.json"), "utf8")),
  }).toEqual({
    exitCode: 0,
    stdout: [
      caseDir,
      `✓ lint passed: ${join(caseDir, "case.json")}`,
      // gh-shim lint says it passed, as grade lint does (issue 26).
      "✓ lint passed: cassettes.json",
      "✓ grade passed: 4 assertions",
      "✓ eval passed: my-skill/first-case",
    ],
    cassette: {
      version: 1,
      calls: [
        {
          argv: ["issue", "view", "7", "--json", "state,title"],
          stdout: '{"state":"OPEN","title":"Add a dark mode"}\n',
          stderr: "",
          exit: 0,
        },
      ],
    },
  });
});
