#!/usr/bin/env bun
// The multi-call binary: one ~100 MB executable instead of six. It dispatches on the name it is
// called by (a link named gh, gh-shim, grade, ...) or on a first-word subcommand (proctor grade ...).
// Tools are imported lazily so `gh` replay does not pay for modules it never uses.
import { basename } from "node:path";
import { unknownFlag, unknownWord } from "../lib/core/suggest.ts";
import { VERSION } from "../lib/core/version.ts";

type ToolMain = (rawArgs: string[]) => Promise<number>;

const TOOLS: Record<string, () => Promise<{ main: ToolMain }>> = {
  gh: () => import("./gh-shim.ts").then((m) => ({ main: m.ghMain })),
  "gh-shim": () => import("./gh-shim.ts"),
  grade: () => import("./grade.ts"),
  "run-eval": () => import("./run-eval.ts"),
  "agent-eval": () => import("./agent-eval.ts"),
  "eval-steps": () => import("./eval-steps.ts"),
  "eval-mcp": () => import("./eval-mcp.ts"),
};

/** proctor's own flags (a tool's come after its name), by spelling. */
const OWN_FLAGS = new Map([
  ["help", "--help"],
  ["h", "-h"],
  ["version", "--version"],
]);

const USAGE = `proctor ${VERSION}: evidence that an agent change made it better or worse

Usage: proctor <tool> [args...]   or call a link named after the tool

Tools:
  gh-shim    the PATH-fronted gh that replays cassettes (linked as gh it is gh)
  grade      grade a case's artifacts; lint cases, issues, branches, commits, PRs, run-log records
  run-eval   run hermetic cases in a network sandbox and grade them (-j N, --junit, --json)
  agent-eval blinded promotion (lock, run, verdict, verify, plan), Docker suites (suite), reports
  eval-steps step suites: harvest shadow traffic, replay against a model, judge
  eval-mcp   MCP server (stdio) showing scorecards and step harvests to agents
`;

function toolName(invoked: string): string {
  // proctor-linux-x64, grade.exe: strip the platform suffix a release asset carries.
  return basename(invoked)
    .replace(/\.exe$/i, "")
    .replace(/-(linux|darwin|windows)-(x64|arm64)(-musl)?$/, "");
}

/** Dispatches argv to one tool and returns its exit code. */
export async function dispatch(argv0: string, args: string[]): Promise<number> {
  let name = toolName(argv0);
  let rest = args;
  if (!(name in TOOLS)) {
    const [first, ...others] = args;
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      process.stdout.write(USAGE);
      return 0;
    }
    if (first === "--version") {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    name = first;
    rest = others;
  }
  const load = TOOLS[name];
  if (!load) {
    const message = name.startsWith("-")
      ? unknownFlag(name, OWN_FLAGS, ["--help", "--version"], "proctor")
      : unknownWord("tool", name, Object.keys(TOOLS));
    process.stderr.write(`✗ ${message}\n`);
    return 2;
  }
  const { main } = await load();
  return main(rest);
}

// process.argv0 keeps the name of the link we were called through (process.argv[0] is resolved).
process.exitCode = await dispatch(process.argv0, process.argv.slice(2));
