// The docs' offline walkthrough, run verbatim: every ```bash block between the offline-walkthrough
// markers (README.md or docs/, tests/docs/_blocks.ts), in order, in one bash in a fresh directory,
// with `proctor` on PATH running this checkout.
// A new user who follows the README gets this scorecard: nop and talker fail, oracle and fixer pass;
// then the Docker part (an agent image built offline FROM proctor-base) gives the same.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { sectionCommands } from "../docs/_blocks.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { passRates } from "./_support.ts";

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

const RATES: Record<string, [string, string]> = {
  nop: ["1", "0.0%"],
  oracle: ["1", "100.0%"],
  talker: ["1", "0.0%"],
  fixer: ["1", "100.0%"],
};

test("the README's offline walkthrough runs as written", async () => {
  using tmp = tempDir("walkthrough");
  const r = await bash(tmp.path, sectionCommands("offline-walkthrough"));
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
  // The run's own folder beside the suite (no --trials): suites/runs/offline-<UTC time>/.
  const runs = join(tmp.path, "offline", "suites", "runs");
  const folder = readdirSync(runs).find((n) => n.startsWith("offline-")) ?? "none";
  const trials = readFileSync(join(runs, folder, "trials.jsonl"), "utf8")
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
      `${sectionCommands("offline-walkthrough")}\n${sectionCommands("offline-walkthrough-docker")}`,
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
