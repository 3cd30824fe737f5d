// `npm run quickstart` (lib/suite/quickstart.ts) as a newcomer runs it, twice in a row: each run is
// the skills A/B against the mock model on this host, the candidate passes and the baseline fails, and
// each writes a folder of its own, so the second is not refused for the first one's trials. Without
// the pinned CLIs it says which command installs them.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { quickstart } from "../../lib/suite/quickstart.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { passRates } from "./_support.ts";

test("without the pinned CLIs the quickstart names the command that installs them", async () => {
  using dir = tempDir("quickstart-bare");
  await expect(quickstart(dir.path)).rejects.toThrow(
    `Cannot run the quickstart: no pinned Claude Code at "${join(dir.path, "evals/clis/node_modules/.bin/claude")}": run \`npm ci --prefix evals/clis\``,
  );
});

test("run twice: the candidate passes, the baseline fails, each run in a folder of its own", async () => {
  using tmp = tempDir("quickstart");
  const env: Record<string, string> = { ...(process.env as Record<string, string>), TMPDIR: tmp.path };
  delete env.ANTHROPIC_API_KEY;
  const once = async () => {
    const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "quickstart.ts")], { cwd: tmp.path, env });
    return { exitCode: r.exitCode, rates: passRates(r.stdout) };
  };
  const rates: Record<string, [string, string]> = { baseline: ["3", "0.0%"], candidate: ["3", "100.0%"] };
  const card = { exitCode: 0, rates };
  expect([await once(), await once()]).toEqual([card, card]);
  const runs = readdirSync(tmp.path).filter((n) => n.startsWith("proctor-quickstart-"));
  expect(
    runs.map((n) => ["trials.jsonl", "report.html"].map((f) => existsSync(join(tmp.path, n, f)))),
  ).toEqual([
    [true, true],
    [true, true],
  ]);
}, 900_000);
