// Every Proctor tool's citty definition and every (sub)command under it, read from the entries
// themselves: a test that walks these fails when a new subcommand appears without its row.
import type { ArgsDef, CommandDef } from "citty";

// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is generic over each tool's own args
type AnyCommand = CommandDef<any>;

/** What every scripts/<tool>.ts entry exports. */
export interface ToolEntry {
  command: AnyCommand;
  main: (rawArgs: string[]) => Promise<number>;
}

/** The citty tools the multi-call binary dispatches to (its `gh` is gh itself, not a citty command). */
export const TOOLS: Record<string, () => Promise<ToolEntry>> = {
  "gh-shim": () => import("../../scripts/gh-shim.ts"),
  grade: () => import("../../scripts/grade.ts"),
  "run-eval": () => import("../../scripts/run-eval.ts"),
  "agent-eval": () => import("../../scripts/agent-eval.ts"),
  "eval-steps": () => import("../../scripts/eval-steps.ts"),
  "eval-mcp": () => import("../../scripts/eval-mcp.ts"),
  "mock-model": () => import("../../scripts/mock-model.ts"),
};

/** One command: `agent-eval suite` is tool `agent-eval`, words `["suite"]`. */
export interface CommandNode {
  path: string;
  tool: string;
  command: AnyCommand;
  args: ArgsDef;
  subCommands: string[];
}

async function resolved<T>(v: unknown): Promise<T> {
  return (typeof v === "function" ? await v() : await v) as T;
}

/** Every command of every tool, roots first, subcommands in declaration order. */
export async function allCommands(): Promise<CommandNode[]> {
  const out: CommandNode[] = [];
  const walk = async (tool: string, path: string, command: AnyCommand) => {
    const subs = (await resolved<Record<string, unknown> | undefined>(command.subCommands)) ?? {};
    const args = (await resolved<ArgsDef | undefined>(command.args)) ?? {};
    out.push({ path, tool, command, args, subCommands: Object.keys(subs) });
    for (const [name, sub] of Object.entries(subs))
      await walk(tool, `${path} ${name}`, await resolved<AnyCommand>(sub));
  };
  for (const [tool, load] of Object.entries(TOOLS)) await walk(tool, tool, (await load()).command);
  return out;
}
