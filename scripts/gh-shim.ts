#!/usr/bin/env bun
// gh-shim: the PATH-fronted gh that replays cassettes. `ghMain` is gh itself (the multi-call binary
// calls it when linked as `gh`); `main` is the gh-shim tool: `lint CASSETTE [--json]` and
// `replay -- <gh args>`. The gh path loads no consola and no zod (lint loads zod lazily): its
// start-up time is paid by every gh call a subject makes.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { runGh } from "../lib/gh/shim/gh.ts";

function selfPaths(): string[] {
  return [process.execPath, process.argv[1] ?? "", fileURLToPath(import.meta.url)].flatMap((p) => {
    try {
      return [p, realpathSync(p)];
    } catch {
      return p ? [p] : [];
    }
  });
}

/** gh itself: runs one invocation, writes its output, returns its exit code; never prints a stack. */
export async function ghMain(rawArgs: string[]): Promise<number> {
  // A reader that stops early (gh ... | head) is not our error: no EPIPE dump on stderr.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  let code: number;
  try {
    const out = await runGh(rawArgs, { env: process.env, cwd: process.cwd(), self: selfPaths() });
    if (out.stdout) process.stdout.write(out.stdout);
    if (out.stderr) process.stderr.write(out.stderr);
    code = out.exitCode;
  } catch (error) {
    process.stderr.write(`✗ gh shim: ${error instanceof Error ? error.message : String(error)}\n`);
    code = 1;
  }
  process.exitCode = code;
  return code;
}

const lint = defineCommand({
  meta: { name: "lint", description: "Find cassette entries that are broken, duplicated or can never match" },
  args: {
    cassette: { type: "positional", description: "path to cassettes.json", required: true },
    json: { type: "boolean", description: "print one JSON object instead of lines" },
  },
  async run({ args }) {
    const { lintCassetteFile } = await import("../lib/gh/shim/lint.ts");
    const r = lintCassetteFile(args.cassette, { json: args.json });
    process.stdout.write(r.output);
    return r.exitCode;
  },
});

const replay = defineCommand({
  meta: { name: "replay", description: "Behave as gh for the arguments after --" },
  run: () => 2, // never reached: main() hands replay to ghMain before citty
});

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({
  meta: { name: "gh-shim", version: VERSION, description: "gh record/replay shim (linked as gh it is gh)" },
  subCommands: { lint, replay },
});

/** The gh-shim tool: `lint CASSETTE [--json]`, `replay -- <gh args>`. */
export async function main(rawArgs: string[]): Promise<number> {
  const [first, ...rest] = rawArgs;
  // gh arguments are not ours to parse (not even --help): replay goes straight to gh.
  if (first === "replay") return ghMain(rest[0] === "--" ? rest.slice(1) : rest);
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
