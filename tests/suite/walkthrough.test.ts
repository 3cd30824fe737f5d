// README's offline walkthrough, run verbatim: every ```bash block between the offline-walkthrough
// markers, in order, in one bash in a fresh directory, with `proctor` on PATH running this checkout.
// A new user who follows the README gets this scorecard: nop and talker fail, oracle and fixer pass;
// then the Docker part (an agent image built offline FROM proctor-base) gives the same.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

/** The commands of the README section between `<!-- name -->` and `<!-- /name -->`, as written. */
export function walkthrough(readme: string, name = "offline-walkthrough"): string {
  const start = readme.indexOf(`<!-- ${name} -->`);
  const end = readme.indexOf(`<!-- /${name} -->`);
  if (start < 0 || end < start) throw new Error(`README.md has no ${name} section`);
  return [...readme.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/** `| name | trials | pass@1 (CI) | ...` rows of the variant table: name -> [trials, pass@1]. */
function passRates(markdown: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const m of markdown.matchAll(/^\| (\w+) \| (\d+) \| ([\d.]+%) \(/gm)) out[m[1]!] = [m[2]!, m[3]!];
  return out;
}

/** Runs `script` in bash -e in `dir`, with `proctor` (this checkout) first on PATH. */
async function bash(dir: string, script: string) {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const proctor = join(bin, "proctor");
  writeFileSync(
    proctor,
    `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, "scripts", "proctor.ts")}" "$@"\n`,
  );
  chmodSync(proctor, 0o755);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PATH: `${bin}:${process.env.PATH}`,
  };
  delete env.CI;
  return run(["bash", "-e", "-c", script], { cwd: dir, env });
}

const README = () => readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const RATES: Record<string, [string, string]> = {
  nop: ["1", "0.0%"],
  oracle: ["1", "100.0%"],
  talker: ["1", "0.0%"],
  fixer: ["1", "100.0%"],
};

test("the README's offline walkthrough runs as written", async () => {
  using tmp = tempDir("walkthrough");
  const r = await bash(tmp.path, walkthrough(README()));
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
    rates: RATES,
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

test("then in Docker: the agent's image built offline FROM proctor-base, the same scorecard", async () => {
  using tmp = tempDir("walkthrough");
  try {
    const r = await bash(
      tmp.path,
      `${walkthrough(README())}\n${walkthrough(README(), "offline-walkthrough-docker")}`,
    );
    const docker = r.stdout.slice(r.stdout.indexOf("# Eval scorecard: offline-docker"));
    expect({ exitCode: r.exitCode, rates: passRates(docker), local: docker.includes("LOCAL RUN") }).toEqual({
      exitCode: 0,
      rates: RATES,
      local: false,
    });
  } finally {
    await run(["docker", "rmi", "-f", "offline-agent:1"]);
  }
});
