#!/usr/bin/env bun
// eval-mcp: an MCP server (stdio) that shows scorecards to agents and previews step harvests
// (lib/mcp/server.ts). stdout carries the protocol only; messages go to stderr. The server ends when
// the client closes stdin. `--root DIR` is where files may lie besides the working directory;
// `--allow-writes` lets eval_harvest write cases when a call also says dry_run: false. The transport
// (lib/mcp/stdio.ts) answers a malformed line with -32700/-32600 instead of dropping it.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { UsageError } from "../lib/core/errors.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { createEvalServer } from "../lib/mcp/server.ts";
import { LineTransport } from "../lib/mcp/stdio.ts";
import { harvest } from "../lib/steps/harvest.ts";

/** The citty definition: its subcommands and flags are what tests/core/strict-flags.test.ts walks. */
export const command = defineCommand({
  meta: {
    name: "eval-mcp",
    version: VERSION,
    description: "MCP server (stdio): eval_scorecard, eval_harvest",
  },
  args: {
    root: {
      type: "string",
      description: "directory the tools may read from (default: the working directory)",
    },
    "allow-writes": { type: "boolean", description: "let eval_harvest write cases (with dry_run: false)" },
  },
  async run({ args }) {
    const root = resolve(args.root ?? ".");
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--root must be a directory, got "${args.root}"`);
    const server = createEvalServer({ root, allowWrites: args["allow-writes"] === true, harvest });
    const transport = new LineTransport();
    const closed = new Promise<void>((done) => {
      transport.onclose = done;
    });
    await server.connect(transport);
    await closed;
    return 0;
  },
});

/** Runs eval-mcp and returns its exit code (when the client closes stdin). */
export async function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, { usageExit: 2 });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
