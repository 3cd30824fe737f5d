#!/usr/bin/env bun
// quickstart: `npm run quickstart`, a checkout's first result: the skills A/B suite with the real
// Claude Code against the mock model, on this host (lib/suite/quickstart.ts). Not part of the binary.
// Exit code and error line: the suite's (0 it ran, 1 an error).
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { SUITE_EDGE } from "../lib/suite/cmd.ts";
import { quickstart } from "../lib/suite/quickstart.ts";

export const command = defineCommand({
  meta: {
    name: "quickstart",
    version: VERSION,
    description:
      "the skills A/B suite (evals/suites/skills-ab.yaml) with the pinned Claude Code against the mock model, on this host",
  },
  run: () => quickstart(),
});

/** Runs the quickstart and returns the suite's exit code. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, SUITE_EDGE);
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
