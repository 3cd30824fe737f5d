// task.toml typos (issue 26): Harbor keeps and ignores keys it does not know, so `timout_sec` ran with
// the default timeout without a word. A key a letter or two from one Harbor reads, in a table it
// reads, is now a warning naming the file, the key and the one meant; the task still loads.
import { expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { parseHarborConfig } from "../../../lib/suite/harbor/config.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const warn = (key: string, near: string) =>
  `t/task.toml: ${key}: not a key Harbor reads (did you mean ${near}?), ignored`;

test.each<{ name: string; toml: string; want: string[] | undefined }>([
  {
    name: "typos in the tables Harbor reads",
    toml: '[task]\nname = "x"\ndescriptoin = "d"\n[agent]\ntimout_sec = 60\n[verifier]\ntimeout_secs = 9\n[environment]\ncpu = 2\nmemory_mbs = 512\n',
    want: [
      warn("task.descriptoin", "description"),
      warn("agent.timout_sec", "timeout_sec"),
      warn("verifier.timeout_secs", "timeout_sec"),
      warn("environment.cpu", "cpus"),
      warn("environment.memory_mbs", "memory_mb"),
    ],
  },
  { name: "a top-level typo", toml: 'verison = "1.0"\n', want: [warn("verison", "version")] },
  {
    name: "keys far from any Harbor reads, and free tables, are left alone (Harbor adds keys)",
    toml: 'version = "1.0"\n[metadata]\nauthr = "x"\ndifficulty = "easy"\n[agent]\nsomething_new = 1\n[environment.env]\nTIMOUT = "1"\n',
    want: undefined,
  },
])("$name", ({ toml, want }) => {
  expect(parseHarborConfig(toml, "t/task.toml", {}).warnings).toEqual(want);
});

test("agent-eval suite says so on stderr before anything runs", async () => {
  using dir = tempDir("harbor-typos");
  cpSync(join(REPO_ROOT, "tests", "fixtures", "harbor", "fix-add"), join(dir.path, "fix-add"), {
    recursive: true,
  });
  const toml = join(dir.path, "fix-add", "task.toml");
  writeFileSync(toml, readFileSync(toml, "utf8").replace("[agent]\n", "[agent]\ntimout_sec = 5\n"));
  mkdirSync(join(dir.path, "suites"));
  writeFileSync(
    join(dir.path, "suites", "h.yaml"),
    "name: h\ntasks: [fix-add]\nvariants: [{name: o, harness: oracle}]\n",
  );
  // --local refuses Harbor tasks: the warning comes first, from loading the suite.
  const r = await run(
    [
      process.execPath,
      join(REPO_ROOT, "scripts", "agent-eval.ts"),
      "suite",
      join(dir.path, "suites", "h.yaml"),
      "--tasks",
      dir.path,
      "--local",
    ],
    { env: { PATH: process.env.PATH ?? "" } },
  );
  expect(r.stderr.split("\n")[0]).toEqual(
    `warning: ${toml}: agent.timout_sec: not a key Harbor reads (did you mean timeout_sec?), ignored`,
  );
});
