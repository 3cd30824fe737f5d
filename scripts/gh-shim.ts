#!/usr/bin/env bun
// gh-shim: the PATH-fronted gh that replays cassettes. `ghMain` is gh itself (the multi-call binary
// calls it when linked as `gh`); `main` is the gh-shim tool: `lint CASSETTE [--json]`,
// `record [flags] -- COMMAND...` and `replay -- <gh args>`. Bodies: lib/gh/cmd.ts (the gh path loads no consola and no zod).
import { fileURLToPath } from "node:url";
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { ghCommand, LINT_ARGS, lintCmd, RECORD_ARGS, recordCmd } from "../lib/gh/cmd.ts";

/** gh itself: runs one invocation, writes its output, returns its exit code. */
export const ghMain = (rawArgs: string[]) => ghCommand(rawArgs, fileURLToPath(import.meta.url));

const lint = defineCommand({
  meta: { name: "lint", description: "Find cassette entries that are broken, duplicated or can never match" },
  args: LINT_ARGS,
  run: ({ args }) => lintCmd(args),
});

/** `record`; `words` is the command after `--`, kept away from our flag parsing (its --help is its own). */
const recordDef = (words?: string[]) =>
  defineCommand({
    meta: {
      name: "record",
      description: "Run the command after -- with the real gh behind the shim and write a cassette",
    },
    args: RECORD_ARGS,
    run: ({ args }) => recordCmd(args, words),
  });
const record = recordDef();

const replay = defineCommand({
  meta: { name: "replay", description: "Behave as gh for the arguments after --" },
  run: () => 2, // never reached: main() hands replay to ghMain before citty
});

export const command = defineCommand({
  meta: { name: "gh-shim", version: VERSION, description: "gh record/replay shim (linked as gh it is gh)" },
  subCommands: { lint, record, replay },
});

/** The gh-shim tool: `lint CASSETTE [--json]`, `record [flags] -- COMMAND...`, `replay -- <gh args>`. */
export async function main(rawArgs: string[]): Promise<number> {
  const [first, ...rest] = rawArgs;
  // gh arguments are not ours to parse (not even --help): replay goes straight to gh.
  if (first === "replay") return ghMain(rest[0] === "--" ? rest.slice(1) : rest);
  const cut = rawArgs.indexOf("--");
  if (first === "record" && cut > 0) {
    const recording = {
      ...command,
      subCommands: { lint, record: recordDef(rawArgs.slice(cut + 1)), replay },
    };
    return runTool(recording, rawArgs.slice(0, cut), { usageExit: 2 });
  }
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
