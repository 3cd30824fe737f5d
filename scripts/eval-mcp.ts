#!/usr/bin/env bun
// eval-mcp: an MCP server (stdio) that shows scorecards to agents and previews step harvests.
// Placeholder until the step-suite lane lands.
import { isMain } from "../lib/runtime.ts";

/** Runs eval-mcp and returns its exit code. */
export async function main(_rawArgs: string[]): Promise<number> {
  process.stderr.write("✗ eval-mcp is not in this build yet\n");
  return 2;
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
