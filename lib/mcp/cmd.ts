// `eval-mcp`: the command body behind scripts/eval-mcp.ts. Serves the MCP server (lib/mcp/server.ts)
// on stdio until the client closes stdin; stdout carries the protocol only. `--root DIR` is where
// files may lie besides the working directory; `--allow-writes` lets eval_harvest write cases when a
// call also says dry_run: false.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { harvest } from "../steps/harvest.ts";
import { createEvalServer } from "./server.ts";
import { LineTransport } from "./stdio.ts";

/** eval-mcp's flags. */
export const MCP_ARGS = {
  root: { type: "string", description: "directory the tools may read from (default: the working directory)" },
  "allow-writes": { type: "boolean", description: "let eval_harvest write cases (with dry_run: false)" },
} as const satisfies ArgsDef;

/** Serves until the client closes stdin; exit 0. */
export async function serveMcp(args: ParsedArgs<typeof MCP_ARGS>): Promise<number> {
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
}
