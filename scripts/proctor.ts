#!/usr/bin/env bun
// The multi-call binary: one ~100 MB executable instead of six. It dispatches on the name it is
// called by (a link named gh, gh-shim, grade, ...) or on a first-word subcommand (proctor grade ...):
// lib/core/multicall.ts. Tools are imported lazily, and scripts/build.ts compiles with --splitting so
// each is its own chunk inside the binary: `gh` replay and --version load only what they use.
import { dispatch, type ToolTable } from "../lib/core/multicall.ts";
import { VERSION } from "../lib/core/version.ts";

const TOOLS: ToolTable = {
  // gh alone: the replay path, without gh-shim's citty tree (every gh call a subject makes pays it)
  gh: () => import("../lib/gh/cmd.ts").then((m) => ({ main: (args: string[]) => m.ghCommand(args) })),
  "gh-shim": () => import("./gh-shim.ts"),
  grade: () => import("./grade.ts"),
  "run-eval": () => import("./run-eval.ts"),
  "agent-eval": () => import("./agent-eval.ts"),
  "eval-steps": () => import("./eval-steps.ts"),
  "eval-mcp": () => import("./eval-mcp.ts"),
  "mock-model": () => import("./mock-model.ts"),
};

const USAGE = `proctor ${VERSION}: evidence that an agent change made it better or worse

Usage: proctor <tool> [args...]   or call a link named after the tool

Tools:
  gh-shim    the PATH-fronted gh that replays cassettes (linked as gh it is gh)
  grade      grade a case's artifacts; lint cases, issues, branches, commits, PRs, run-log records
  run-eval   run hermetic cases in a network sandbox and grade them (-j N, --junit, --json)
  agent-eval blinded promotion (lock, run, verdict, verify, plan), Docker suites (suite), reports
  eval-steps step suites: harvest shadow traffic, replay against a model, judge
  eval-mcp   MCP server (stdio) showing scorecards and step harvests to agents
  mock-model a scripted model server on 127.0.0.1 (all four protocols) for offline runs
`;

// process.argv0 keeps the name of the link we were called through (process.argv[0] is resolved).
process.exitCode = await dispatch(TOOLS, USAGE, process.argv0, process.argv.slice(2));
