#!/usr/bin/env bun
// eval-mcp: an MCP server (stdio) that shows scorecards to agents and previews step harvests. The
// transport (lib/mcp/stdio.ts) answers a malformed line with -32700/-32600 instead of dropping it.
// Flags and body: lib/mcp/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { MCP_ARGS, serveMcp } from "../lib/mcp/cmd.ts";

export const command = defineCommand({
  meta: {
    name: "eval-mcp",
    version: VERSION,
    description: "MCP server (stdio): eval_scorecard, eval_harvest",
  },
  args: MCP_ARGS,
  run: ({ args }) => serveMcp(args),
});

/** Runs eval-mcp and returns its exit code (when the client closes stdin). */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
