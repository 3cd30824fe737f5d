// eval-mcp: Proctor's MCP server (official TypeScript SDK, stdio). Two tools. `eval_scorecard`
// (read-only, like halo's: originals.md §6.8) returns a scorecard `.json` file under --root or the
// working directory as `{scorecard}`. `eval_harvest` previews a step harvest (provenance and expected
// tool names only, never a request) and writes cases only when the server runs with --allow-writes
// and the call says dry_run: false. Every refusal or bad argument is a tool error (isError), never a
// crash: the SDK turns thrown errors and schema failures into tool results. Files are opened by
// descriptor under a root (lib/core/confined.ts: no link at any component, FIFOs refused without blocking)
// and no error quotes a file's content: JSON errors give the line and column only.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { jsonSyntaxWhere } from "../compat/py/json.ts";
import { accessProblem, readConfined } from "../core/confined.ts";
import { VERSION } from "../core/version.ts";
import { isRecord } from "../wire/index.ts";
import { HarvestInput, type HarvestRunner, harvestTool } from "./harvest-tool.ts";
import { locate, rootsOf } from "./paths.ts";

/** Server settings: the root paths may lie under (besides the working directory), writes allowed. */
export interface ServerOptions {
  root: string;
  cwd?: string;
  allowWrites?: boolean;
  /** The harvest library function (lib/steps/harvest.ts), injectable for tests. */
  harvest: HarvestRunner;
}

/** A thrown error the SDK reports as a tool error with this message. */
class ToolRefusal extends Error {}

/** The largest scorecard read (a scorecard is a few KiB; this only bounds a hostile file). */
export const SCORECARD_MAX_BYTES = 16 << 20;

/** Reads a scorecard JSON object from a contained `.json` path; throws ToolRefusal otherwise. */
export function readScorecard(path: string, roots: readonly string[], cwd: string): Record<string, unknown> {
  const at = typeof path === "string" && path.endsWith(".json") ? locate(path, roots, cwd) : undefined;
  if (!at)
    throw new ToolRefusal(
      `scorecard must be a .json file under the root or working directory, got ${JSON.stringify(path)}`,
    );
  let text: string;
  try {
    text = readConfined(at.root, at.rel, { maxBytes: SCORECARD_MAX_BYTES }).toString("utf8");
  } catch (error) {
    throw new ToolRefusal(`read scorecard: ${accessProblem(error)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ToolRefusal(`parse scorecard ${path}: ${jsonSyntaxWhere(text)}`);
  }
  if (!isRecord(data)) throw new ToolRefusal(`parse scorecard ${path}: expected a JSON object`);
  return data;
}

/** Builds the server with both tools registered; connect it to a transport to serve. */
export function createEvalServer(opts: ServerOptions): McpServer {
  const cwd = opts.cwd ?? process.cwd();
  const roots = rootsOf([opts.root, cwd], cwd);
  const server = new McpServer({ name: "proctor-eval", version: VERSION });
  server.registerTool(
    "eval_scorecard",
    {
      title: "Read an eval scorecard",
      description:
        "Returns a task- or step-suite scorecard (.json) as {scorecard}. Read-only; the file must lie under the server's --root or working directory.",
      inputSchema: {
        path: z.string().describe("scorecard .json file under the root or the working directory"),
      },
      outputSchema: { scorecard: z.record(z.string(), z.unknown()) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path }) => {
      const scorecard = readScorecard(path, roots, cwd);
      return {
        content: [{ type: "text", text: JSON.stringify({ scorecard }) }],
        structuredContent: { scorecard },
      };
    },
  );
  server.registerTool(
    "eval_harvest",
    {
      title: "Preview or write a step harvest",
      description:
        "Selects steps from a shadow pair store as `eval-steps harvest` does and returns the preview (provenance and expected tool names per case). Writes the cases only when the server runs with --allow-writes and dry_run is false.",
      inputSchema: HarvestInput,
      annotations: { readOnlyHint: !opts.allowWrites, destructiveHint: false, openWorldHint: false },
    },
    async (args) => {
      const result = await harvestTool(args, {
        roots,
        cwd,
        allowWrites: opts.allowWrites === true,
        run: opts.harvest,
      });
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  return server;
}
