// The multi-call binary's dispatch: one executable, many tools, chosen by the name it is called by
// (a link named gh, grade, ..., with a release asset's platform suffix stripped) or by a first word
// (proctor grade ...). It knows no tool: scripts/proctor.ts hands it the table of lazy loaders, so
// `gh` replay does not pay for modules it never uses.
import { writeStderr, writeStdout } from "./stdio.ts";
import { unknownFlag, unknownWord } from "./suggest.ts";
import { VERSION } from "./version.ts";

/** A tool's entry: runs it with its arguments and returns the exit code. */
export type ToolMain = (rawArgs: string[]) => Promise<number>;

/** The tools by name, each loaded when called. */
export type ToolTable = Record<string, () => Promise<{ main: ToolMain }>>;

/** proctor's own flags (a tool's come after its name), by spelling. */
const OWN_FLAGS = new Map([
  ["help", "--help"],
  ["h", "-h"],
  ["version", "--version"],
]);

/** The tool a binary called `invoked` is: proctor-linux-x64 and grade.exe lose their platform suffix. */
export function toolName(invoked: string): string {
  // path.basename's answer for these names, without node:path (its load is a tenth of a gh call)
  return invoked
    .replace(/\/+$/, "")
    .replace(/^.*\//, "")
    .replace(/\.exe$/i, "")
    .replace(/-(linux|darwin|windows)-(x64|arm64)(-musl)?$/, "");
}

/** Dispatches argv to one tool and returns its exit code; an unknown tool is exit 2 with one line. */
export async function dispatch(
  tools: ToolTable,
  usage: string,
  argv0: string,
  args: string[],
): Promise<number> {
  let name = toolName(argv0);
  let rest = args;
  if (!(name in tools)) {
    const [first, ...others] = args;
    // Straight to descriptor 1, not process.stdout: Bun builds the Node stream on first use, most
    // of what --version would cost (lib/core/stdio.ts, tests/bench/dist.ts).
    if (first === undefined || first === "--help" || first === "-h" || first === "help") {
      await writeStdout(usage);
      return 0;
    }
    if (first === "--version") {
      await writeStdout(`${VERSION}\n`);
      return 0;
    }
    name = first;
    rest = others;
  }
  const load = tools[name];
  if (!load) {
    const message = name.startsWith("-")
      ? unknownFlag(name, OWN_FLAGS, ["--help", "--version"], "proctor")
      : unknownWord("tool", name, Object.keys(tools));
    await writeStderr(`✗ ${message}\n`);
    return 2;
  }
  const { main } = await load();
  return main(rest);
}
