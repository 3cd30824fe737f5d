// README's offline walkthrough, run verbatim: every ```bash block between the offline-walkthrough
// markers, in order, in one bash in a fresh directory, with `proctor` on PATH running this checkout.
// A new user who follows the README gets this scorecard: nop and talker fail, oracle and fixer pass.
import { expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

/** The walkthrough's commands as the README has them. */
export function walkthrough(readme: string): string {
  const start = readme.indexOf("<!-- offline-walkthrough -->");
  const end = readme.indexOf("<!-- /offline-walkthrough -->");
  if (start < 0 || end < start) throw new Error("README.md has no offline-walkthrough section");
  return [...readme.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/** `| name | trials | pass@1 (CI) | ...` rows of the variant table: name -> [trials, pass@1]. */
function passRates(markdown: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const m of markdown.matchAll(/^\| (\w+) \| (\d+) \| ([\d.]+%) \(/gm)) out[m[1]!] = [m[2]!, m[3]!];
  return out;
}

test("the README's offline walkthrough runs as written", async () => {
  using tmp = tempDir("walkthrough");
  const proctor = join(tmp.path, "bin", "proctor");
  const bin = join(tmp.path, "bin");
  await run(["mkdir", "-p", bin]);
  writeFileSync(
    proctor,
    `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, "scripts", "proctor.ts")}" "$@"\n`,
  );
  chmodSync(proctor, 0o755);
  const script = walkthrough(readFileSync(join(REPO_ROOT, "README.md"), "utf8"));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env.PATH}`,
  };
  delete env.CI;
  const r = await run(["bash", "-e", "-c", script], { cwd: tmp.path, env });
  const stderr = r.stderr.split("\n");
  expect({
    exitCode: r.exitCode,
    rates: passRates(r.stdout),
    verdicts: [...r.stdout.matchAll(/^\| (\w+) \| 1 \| .* \| (\w+) \|$/gm)].map((m) => [m[1], m[2]]),
    served: stderr.some((l) =>
      /^serving 2 conversation\(s\) at http:\/\/127\.0\.0\.1:\d+; SIGINT or SIGTERM stops it$/.test(l),
    ),
  }).toEqual({
    exitCode: 0,
    rates: { nop: ["1", "0.0%"], oracle: ["1", "100.0%"], talker: ["1", "0.0%"], fixer: ["1", "100.0%"] },
    verdicts: [
      ["oracle", "insufficient"],
      ["talker", "insufficient"],
      ["fixer", "insufficient"],
    ],
    served: true,
  });
  const trials = readFileSync(join(tmp.path, "offline", "offline.trials.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const fixer = trials.find((t) => t.variant === "fixer")!;
  expect([fixer.tokens, fixer.turns, fixer.toolCalls, fixer.toolErrors, fixer.unreported]).toEqual([
    220,
    2,
    1,
    0,
    ["cost"],
  ]);
});
