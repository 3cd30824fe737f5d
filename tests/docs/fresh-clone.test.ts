// The README followed from a fresh clone to the quickstart's scorecard (issue 26): this repository is
// cloned into a temp dir, then the commands of the README's quickstart section run there as written,
// then the set-up's `npm run examples`. Everything runs in a network namespace holding only lo (bwrap
// --unshare-net) and npm is held offline (npm_config_offline: the local cache, which `npm ci` filled),
// so nothing is fetched: the quickstart's model is the mock on 127.0.0.1.
import { expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { passRates } from "../suite/_support.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { sectionCommands } from "./_blocks.ts";

/** Runs `script` in bash -e in `cwd`, inside a network namespace with only lo, npm offline. */
function offline(script: string, cwd: string, tmp: string) {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/root",
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  const netns = ["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--"];
  const onlyLo = `test "$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev)" = lo || exit 99`;
  ('test "$(ls /sys/class/net)" = lo || { echo "not in a loopback-only namespace" >&2; exit 99; }');
  return run([...netns, "bash", "-e", "-c", `${onlyLo}\n${script}`], { cwd, env });
}

test("from a fresh clone, the README's quickstart: the candidate's skills pass, the baseline's fail", async () => {
  using dir = tempDir("fresh-clone");
  chmodSync(dir.path, 0o755); // it is also TMPDIR, where run-eval's subjects (uid 65534) get their work dirs
  const clone = join(dir.path, "proctor");
  const cloned = await run(["git", "clone", "-q", REPO_ROOT, clone]);
  expect(cloned.stderr).toEqual("");
  const quick = await offline(sectionCommands("quickstart"), clone, dir.path);
  // The quickstart's own folder (trials, logs, report.html) lands in TMPDIR, so it goes with the clone.
  const runs = readdirSync(dir.path).filter((n) => n.startsWith("proctor-quickstart-"));
  expect({
    exitCode: quick.exitCode,
    rates: passRates(quick.stdout),
    runs: runs.map((n) => ["trials.jsonl", "report.html"].map((f) => existsSync(join(dir.path, n, f)))),
  }).toEqual({
    exitCode: 0,
    rates: { baseline: ["3", "0.0%"], candidate: ["3", "100.0%"] },
    runs: [[true, true]],
  });
  // The set-up's first command, on the same clone: every bundled example case passes, sandboxed.
  const examples = await offline("npm run examples", clone, dir.path);
  expect({ exitCode: examples.exitCode, passed: /^✓ \d+ passed/m.test(examples.stdout) }).toEqual({
    exitCode: 0,
    passed: true,
  });
}, 1_800_000);
