// The entry edge shared by every scripts/<tool>.ts: runs a citty command, prints help and version,
// and is the one place that turns results and errors into process.exitCode. A command's run() may
// return a number, which becomes the exit code (a failed assertion is a result, not an error).
// Errors print one line on stderr, never a stack (set PROCTOR_DEBUG=1 to see one); a subcommand may
// lay its own edge over the tool's (withEdge: halo's `error:` line, the promotion lane's JSON object).
import { stripVTControlCharacters } from "node:util";
import { type ArgsDef, type CommandDef, renderUsage, runCommand } from "citty";
import { messageOf, ToolError, UsageError } from "./errors.ts";
import { scanFlags } from "./flags.ts";
import { unknownWord } from "./suggest.ts";
import { useColor } from "./tty.ts";
import { VERSION } from "./version.ts";

// biome-ignore lint/suspicious/noExplicitAny: citty's CommandDef is generic over each tool's own args
type AnyCommand = CommandDef<any>;

/**
 * How a tool (or one subcommand, see withEdge) answers an error: its exit-code vocabulary, its error
 * line and, where a tool promises one, a JSON envelope on stdout that is printed also on failure.
 */
export interface ToolEdge {
  /** Exit code for a bad command line (citty's own errors): default 2; `agent-eval suite` keeps halo's 1. */
  usageExit?: number;
  /** Remap a ToolError's code, e.g. grade reports an unusable case (ConfigError, 3) as 2. */
  remap?: (error: ToolError) => number | undefined;
  /** Exit code for an error that is not a ToolError (default 1). */
  unexpectedExit?: number;
  /** The stderr line for an error's message (default `✗ <message>`). */
  line?: (message: string) => string;
  /** What to print on stdout when the command fails, e.g. the promotion lane's JSON object. */
  envelope?: (error: unknown, exitCode: number) => string;
}

const EDGES = new WeakMap<object, ToolEdge>();

/** Gives one (sub)command its own edge, laid over the tool's; returns the command. */
export function withEdge<T extends AnyCommand>(cmd: T, edge: ToolEdge): T {
  EDGES.set(cmd, edge);
  return cmd;
}

/** A command's subcommands by name, if it has any. */
async function subCommandsOf(cmd: AnyCommand): Promise<Record<string, unknown> | undefined> {
  const def = cmd.subCommands;
  return (typeof def === "function" ? await def() : await def) as Record<string, unknown> | undefined;
}

/** The leaf command the leading words select, its parent, and how many words named it. */
async function resolveSub(
  cmd: AnyCommand,
  rawArgs: string[],
): Promise<{ leaf: AnyCommand; parent: AnyCommand | undefined; depth: number }> {
  let leaf = cmd;
  let parent: AnyCommand | undefined;
  let depth = 0;
  for (const arg of rawArgs) {
    if (arg.startsWith("-")) break;
    const subs = await subCommandsOf(leaf);
    const next =
      subs && Object.hasOwn(subs, arg) ? (subs[arg] as AnyCommand | (() => Promise<AnyCommand>)) : undefined;
    if (!next) break;
    parent = leaf;
    leaf = (typeof next === "function" ? await next() : await next) as AnyCommand;
    depth++;
  }
  return { leaf, parent, depth };
}

/**
 * Runs `cmd` with `rawArgs` and sets process.exitCode; never throws, never calls process.exit.
 * Subcommands are resolved here and the leaf is run alone, so its return value is the exit code
 * (citty's own runCommand would drop it and then run the parent's run() as well).
 */
export async function runTool(cmd: AnyCommand, rawArgs: string[], toolEdge: ToolEdge = {}): Promise<number> {
  let code = 0;
  let edge = toolEdge;
  try {
    const { leaf, parent, depth } = await resolveSub(cmd, rawArgs);
    edge = { ...toolEdge, ...EDGES.get(leaf) };
    const rest = rawArgs.slice(depth);
    if (rest.includes("--help") || rest.includes("-h")) {
      // citty colours usage whenever TERM allows, also into a pipe: only a terminal gets colour.
      const usage = await usageOf(leaf, parent, await commandLabel(cmd, rawArgs.slice(0, depth)));
      process.stdout.write(
        `${useColor(process.env, process.stdout) ? usage : stripVTControlCharacters(usage)}\n`,
      );
    } else if (depth === 0 && rest.length === 1 && rest[0] === "--version") {
      process.stdout.write(`${VERSION}\n`);
    } else {
      const { result } = await runCommand(
        await withFlags(leaf, rest, await commandLabel(cmd, rawArgs.slice(0, depth))),
        { rawArgs: rest },
      );
      code = typeof result === "number" ? result : 0;
    }
  } catch (error) {
    code = exitCodeFor(error, edge);
    if (edge.envelope) process.stdout.write(edge.envelope(error, code));
    const message = messageOf(error);
    process.stderr.write(`${edge.line ? edge.line(message) : `✗ ${message}`}\n`);
    // The one place a stack is printed, and only when asked for.
    if (process.env.PROCTOR_DEBUG && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
  }
  process.exitCode = code;
  return code;
}

/** Spaces at the end of a line, before the colour's closing code when there is one. */
const TRAILING = / +(\u001b\[39m)?$/;

/** The USAGE line of citty's help, and where its words start (after `USAGE `). */
function usageLine(help: string): { line: string; words: number } | undefined {
  const line = help.split("\n").find((l) => stripVTControlCharacters(l).startsWith("USAGE "));
  if (line === undefined) return undefined;
  const usage = line.indexOf("USAGE");
  return { line, words: line.indexOf(" ", usage) + 1 };
}

/**
 * citty's help. For a command that runs on its own and has subcommands (grade, run-eval, agent-eval
 * suite), citty writes one line that joins the two (`grade [OPTIONS] --case=<case> --out=<out>
 * lint|lint-issue|...`, as if they combined): here each way to call it gets its own line, the
 * command alone first, then each subcommand with its own flags and words.
 */
async function usageOf(leaf: AnyCommand, parent: AnyCommand | undefined, label: string): Promise<string> {
  const help = await renderUsage(leaf, parent);
  const subs = await subCommandsOf(leaf);
  const at = usageLine(help);
  if (!leaf.run || !subs || at === undefined) return help;
  const lines = [usageLine(await renderUsage({ ...leaf, subCommands: undefined }, parent))?.line ?? at.line];
  for (const sub of Object.values(subs)) {
    const cmd = (typeof sub === "function" ? await sub() : await sub) as AnyCommand;
    const own = usageLine(await renderUsage(cmd, { meta: { name: label } }));
    if (own) lines.push(`${" ".repeat("USAGE ".length)}${own.line.slice(own.words).replace(TRAILING, "$1")}`);
  }
  return help.replace(at.line, lines.join("\n"));
}

/**
 * The leaf with its flags checked (lib/core/flags.ts) and each repeatable flag's values handed to run()
 * as an array under every spelling citty accepts (citty itself keeps only the last value).
 */
async function withFlags(leaf: AnyCommand, rest: string[], label: string): Promise<AnyCommand> {
  const def = leaf.args;
  const argsDef = (typeof def === "function" ? await def() : await def) ?? {};
  const subs = await subCommandsOf(leaf);
  // Only a leaf that declares nothing takes its words as they are (grade runlog, gh-shim replay).
  const scan = scanFlags(def === undefined && !subs ? undefined : argsDef, rest, label);
  const takesWords = Object.values(argsDef as ArgsDef).some((a) => a.type === "positional");
  if (subs) {
    const word = scan.positionals[0];
    // citty would still find a subcommand after a flag (`eval-steps --x harvest ...`) and run it
    // unchecked: flags go after the subcommand.
    if (word !== undefined && Object.hasOwn(subs, word) && rest[0]?.startsWith("-"))
      throw new UsageError(`Cannot accept "${rest[0]}" before the subcommand "${word}": put it after`);
    // A word where a subcommand goes, when the command takes no words of its own, is a misspelt
    // subcommand (named before any flag: those were meant for the subcommand), unless it is the value
    // of an undeclared flag (`grade --case x --ot y`): then the flag is what is named.
    if (word !== undefined && !takesWords && !scan.strays?.has(word))
      throw new UsageError(unknownWord("command", word, Object.keys(subs), label));
  }
  if (scan.problem) throw scan.problem;
  // A command with words of its own and subcommands (agent-eval suite SUITE.yaml | suite merge): its
  // first word was no subcommand (resolveSub would have taken it), so it runs as itself; citty would
  // refuse that word as an unknown command.
  if (subs && leaf.run && takesWords) leaf = { ...leaf, subCommands: undefined };
  const repeats = scan.values;
  const run = leaf.run;
  if (repeats.size === 0 || !run) return leaf;
  return {
    ...leaf,
    run: (ctx) => {
      const args = ctx.args as Record<string, unknown>;
      for (const [name, values] of repeats)
        for (const key of [name, name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())])
          args[key] = values;
      return run(ctx);
    },
  };
}

/** `eval-steps harvest`: the tool's name and the words that chose the subcommand. */
async function commandLabel(cmd: AnyCommand, words: string[]): Promise<string> {
  const meta = typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta;
  return [meta?.name ?? "the command", ...words].join(" ");
}

function exitCodeFor(error: unknown, edge: ToolEdge): number {
  if (error instanceof ToolError) return edge.remap?.(error) ?? error.exitCode;
  // citty raises CLIError (code E_*) for unknown commands and missing or malformed arguments.
  if (error instanceof Error && error.name === "CLIError") return edge.usageExit ?? 2;
  return edge.unexpectedExit ?? 1;
}
