import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { runTool, withEdge } from "../../lib/core/cli.ts";
import { ConfigError, ToolError, UsageError } from "../../lib/core/errors.ts";
import { signalExitCode } from "../../lib/core/signals.ts";
import { VERSION } from "../../lib/core/version.ts";

// Capture what the edge writes, and restore process.exitCode so a test never leaks its code.
let out = "";
let err = "";
const write = { out: process.stdout.write, err: process.stderr.write };
beforeEach(() => {
  out = "";
  err = "";
  process.stdout.write = ((s: string) => {
    out += s;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => {
    err += s;
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stdout.write = write.out;
  process.stderr.write = write.err;
  process.exitCode = 0;
});

function cmdThat(behaviour: () => unknown) {
  return defineCommand({
    meta: { name: "demo", description: "a demo tool" },
    args: { file: { type: "positional", required: true, description: "input" } },
    run: () => behaviour(),
  });
}

describe("runTool", () => {
  const cases = [
    {
      name: "returns 0 when run returns nothing",
      behaviour: () => undefined,
      args: ["x"],
      expected: { code: 0, err: "" },
    },
    {
      name: "a returned number is the exit code",
      behaviour: () => 1,
      args: ["x"],
      expected: { code: 1, err: "" },
    },
    {
      name: "ToolError sets its own code with one line",
      behaviour: () => {
        throw new ToolError("Cannot replay: no entry", 1);
      },
      args: ["x"],
      expected: { code: 1, err: "✗ Cannot replay: no entry\n" },
    },
    {
      name: "UsageError is 2",
      behaviour: () => {
        throw new UsageError("Refusing to run in CI");
      },
      args: ["x"],
      expected: { code: 2, err: "✗ Refusing to run in CI\n" },
    },
    {
      name: "ConfigError is 3",
      behaviour: () => {
        throw new ConfigError('Cannot load case "c.json": expected array at grade');
      },
      args: ["x"],
      expected: { code: 3, err: '✗ Cannot load case "c.json": expected array at grade\n' },
    },
    {
      name: "an unexpected error is 1 and one line, no stack",
      behaviour: () => {
        throw new TypeError("boom");
      },
      args: ["x"],
      expected: { code: 1, err: "✗ boom\n" },
    },
    {
      name: "a missing required argument is a usage error (2)",
      behaviour: () => 0,
      args: [],
      expected: { code: 2, err: "✗ Missing required positional argument: FILE\n" },
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const code = await runTool(cmdThat(c.behaviour), c.args);
      expect({ code, exitCode: process.exitCode, err }).toEqual({ ...c.expected, exitCode: c.expected.code });
    });
  }

  test("remap turns a class into the tool's own code", async () => {
    const code = await runTool(
      cmdThat(() => {
        throw new ConfigError("bad case");
      }),
      ["x"],
      { remap: (e) => (e instanceof ConfigError ? 2 : undefined) },
    );
    expect(code).toBe(2);
  });

  test("--version prints the version on stdout", async () => {
    expect({
      code: await runTool(
        cmdThat(() => 0),
        ["--version"],
      ),
      out,
    }).toEqual({ code: 0, out: `${VERSION}\n` });
  });

  test("--help prints usage on stdout and exits 0", async () => {
    const code = await runTool(
      cmdThat(() => 1),
      ["--help"],
    );
    expect({ code, hasUsage: out.includes("USAGE") && out.includes("a demo tool"), err }).toEqual({
      code: 0,
      hasUsage: true,
      err: "",
    });
  });

  test("a subcommand's return value is the exit code, and the parent's run() does not run", async () => {
    const ran: string[] = [];
    const root = defineCommand({
      meta: { name: "root" },
      args: { flag: { type: "boolean" } },
      subCommands: {
        check: defineCommand({
          meta: { name: "check" },
          args: { n: { type: "positional", required: true } },
          run: ({ args }) => {
            ran.push(`check ${args.n}`);
            return 3;
          },
        }),
      },
      run: () => {
        ran.push("root");
        return 0;
      },
    });
    const viaSub = await runTool(root, ["check", "7"]);
    const viaRoot = await runTool(root, ["--flag"]);
    expect({ viaSub, viaRoot, ran }).toEqual({ viaSub: 3, viaRoot: 0, ran: ["check 7", "root"] });
  });

  test("--help after a subcommand shows that subcommand's usage", async () => {
    const root = defineCommand({
      meta: { name: "root" },
      subCommands: {
        check: defineCommand({ meta: { name: "check", description: "checks one thing" }, run: () => 0 }),
      },
    });
    const code = await runTool(root, ["check", "--help"]);
    expect({ code, shows: out.includes("checks one thing") }).toEqual({ code: 0, shows: true });
  });
});

// issue 26: citty wrote one usage line for a command that runs alone and has subcommands (`grade
// [OPTIONS] --case=<case> --out=<out> lint|lint-issue|...`), as if the two combined.
test.each([
  {
    argv: ["--help"],
    tool: "grade",
    usage: [
      "USAGE grade [OPTIONS] --case=<case> --out=<out>",
      "      grade lint [OPTIONS] <CASE>",
      "      grade lint-issue [OPTIONS] [FILE]",
      "      grade lint-branch [OPTIONS] <NAME>",
      "      grade lint-commit [OPTIONS] [MSG]",
      "      grade lint-pr [OPTIONS] [FILE]",
      "      grade runlog",
    ],
  },
  {
    argv: ["--help"],
    tool: "run-eval",
    usage: [
      "USAGE run-eval [OPTIONS] [CASES]",
      "      run-eval new [OPTIONS] <NAME>",
      "      run-eval merge [OPTIONS] [FILES]",
      "      run-eval compare [OPTIONS] [RUNS]",
    ],
  },
  {
    argv: ["suite", "--help"],
    tool: "agent-eval",
    usage: [
      "USAGE agent-eval suite [OPTIONS] [SUITE]",
      "      agent-eval suite merge [OPTIONS] [SUITE] [TRIALS]",
    ],
  },
  { argv: ["lint", "--help"], tool: "grade", usage: ["USAGE grade lint [OPTIONS] <CASE>"] },
])("$tool $argv: one usage line per way to call it", async ({ tool, argv, usage }) => {
  const { main } = await (await import("../support/commands.ts")).TOOLS[tool]!();
  const code = await main([...argv]);
  const lines = out.split("\n");
  const from = lines.findIndex((l) => l.startsWith("USAGE "));
  expect({ code, usage: lines.slice(from, from + usage.length + 1) }).toEqual({
    code: 0,
    usage: [...usage, ""],
  });
});

describe("withEdge: a subcommand's own edge over the tool's", () => {
  const failing = (error: unknown) =>
    defineCommand({
      meta: { name: "sub" },
      args: { n: { type: "string" } },
      run: () => {
        throw error;
      },
    });
  const envelope = (e: unknown, exit: number) => `${JSON.stringify({ error: String(e), exit })}\n`;
  const cases = [
    {
      name: "the JSON envelope on stdout and the ✗ line, 1 remapped to 4",
      error: new ToolError("no such run", 1),
      edge: { remap: (e: ToolError) => (e.exitCode === 1 ? 4 : undefined), envelope },
      args: ["sub"],
      want: { code: 4, out: '{"error":"ToolError: no such run","exit":4}\n', err: "✗ no such run\n" },
    },
    {
      name: "an unexpected error takes unexpectedExit",
      error: new TypeError("boom"),
      edge: { unexpectedExit: 4 },
      args: ["sub"],
      want: { code: 4, out: "", err: "✗ boom\n" },
    },
    {
      name: "halo's line and exit 1, also for a flag error",
      error: new UsageError("never thrown"),
      edge: { remap: () => 1, usageExit: 1, line: (m: string) => `error: ${m.split("\n")[0]}` },
      args: ["sub", "--n", "1", "--n", "2"],
      want: { code: 1, out: "", err: "error: Cannot accept --n twice: it takes one value\n" },
    },
    {
      name: "the envelope also answers a flag error",
      error: new UsageError("never thrown"),
      edge: { envelope },
      args: ["sub", "--n", "1", "--n", "2"],
      want: {
        code: 2,
        out: '{"error":"UsageError: Cannot accept --n twice: it takes one value","exit":2}\n',
        err: "✗ Cannot accept --n twice: it takes one value\n",
      },
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const root = defineCommand({
        meta: { name: "root" },
        subCommands: { sub: withEdge(failing(c.error), c.edge) },
      });
      const code = await runTool(root, c.args, { usageExit: 2 });
      expect({ code, out, err }).toEqual(c.want);
    });

  test("PROCTOR_DEBUG prints the stack after the line, at the edge only", async () => {
    process.env.PROCTOR_DEBUG = "1";
    try {
      await runTool(
        cmdThat(() => {
          throw new ToolError("Cannot replay: no entry", 1);
        }),
        ["x"],
      );
    } finally {
      delete process.env.PROCTOR_DEBUG;
    }
    const [line, stack] = err.split("\n");
    expect({ line, stackHead: stack?.startsWith("ToolError: Cannot replay: no entry") }).toEqual({
      line: "✗ Cannot replay: no entry",
      stackHead: true,
    });
  });
});

test("signalExitCode: a shell's codes", () => {
  expect((["SIGINT", "SIGTERM"] as const).map(signalExitCode)).toEqual([130, 143]);
});

test("one edge: process.exit only in lib/core/signals.ts, PROCTOR_DEBUG only in lib/core/cli.ts", () => {
  const root = join(import.meta.dirname, "..", "..");
  const files = ["lib", "scripts"].flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts") && !f.startsWith("build"))
      .map((f) => `${dir}/${f}`),
  );
  const holding = (needle: string) =>
    files.filter((f) => readFileSync(join(root, f), "utf8").includes(needle)).sort();
  expect({ exit: holding("process.exit("), debug: holding("process.env.PROCTOR_DEBUG") }).toEqual({
    exit: ["lib/core/signals.ts"],
    debug: ["lib/core/cli.ts"],
  });
});

test.each([
  { env: "NO_COLOR", value: "1" },
  { env: "FORCE_COLOR", value: "0" },
])(
  "--help with $env=$value has no colour (citty's usage colours whenever TERM allows)",
  async ({ env, value }) => {
    const before = process.env[env];
    process.env[env] = value;
    try {
      await runTool(
        cmdThat(() => 0),
        ["--help"],
      );
    } finally {
      if (before === undefined) delete process.env[env];
      else process.env[env] = before;
    }
    expect({ usage: out.includes("USAGE"), escapes: out.includes("\x1b[") }).toEqual({
      usage: true,
      escapes: false,
    });
  },
);
