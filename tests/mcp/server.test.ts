// eval-mcp through the SDK's real client over stdio (the server spawned as `bun scripts/eval-mcp.ts`),
// and once through the MCP Inspector CLI from the npm registry (evals/clis).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { run } from "../../lib/proc.ts";
import { type TempDir, tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

const SERVER = join(REPO_ROOT, "scripts", "eval-mcp.ts");
const INSPECTOR = join(REPO_ROOT, "evals", "clis", "node_modules", ".bin", "mcp-inspector");
const TOOLS = [
  { name: "Read", input_schema: { type: "object", required: ["file_path"] } },
  { name: "Bash", input_schema: { type: "object", required: ["command"] } },
];

function side(name: string, args: Record<string, unknown>) {
  const response = { content: [{ type: "tool_use", id: "t1", name, input: args }], stop_reason: "tool_use" };
  return {
    target: { upstream: "u", model: "m" },
    status: 200,
    latency_ms: 1,
    input_tokens: 1,
    output_tokens: 1,
    response,
  };
}

/** A one-pair store where the candidate diverged from the control (so harvest selects it). */
function pairStore(dir: string): void {
  const row = {
    id: "p1",
    time: "2026-11-30T01:00:00Z",
    experiment: "exp",
    session_id: "raw-session-id-never-shown",
    protocol: "anthropic",
    request: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "open a.ts" }], tools: TOOLS },
    control: side("Read", { file_path: "a.ts" }),
    candidate: side("Bash", { command: "cat a.ts" }),
  };
  writeFileSync(join(dir, "pairs.jsonl"), `${JSON.stringify(row)}\n`);
  writeFileSync(join(dir, "pair.key"), randomBytes(32).toString("base64"));
}

let root: TempDir;
let outside: TempDir;
let client: Client;
let writer: Client;

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: BIN.bun,
    args: [SERVER, ...args],
    cwd: join(root.path, "cwd"),
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  const c = new Client({ name: "proctor-test", version: "1" });
  await c.connect(transport);
  return c;
}

beforeAll(async () => {
  root = tempDir("mcp-root");
  outside = tempDir("mcp-outside");
  mkdirSync(join(root.path, "cwd"));
  mkdirSync(join(root.path, "data"));
  writeFileSync(join(root.path, "data", "sc.json"), JSON.stringify({ suite: "s", model: "m", cases: 1 }));
  writeFileSync(join(root.path, "cwd", "local.json"), JSON.stringify({ suite: "local" }));
  writeFileSync(join(root.path, "data", "broken.json"), "{");
  writeFileSync(join(root.path, "data", "list.json"), "[1]");
  writeFileSync(join(root.path, "data", "sc.txt"), "{}");
  writeFileSync(join(outside.path, "secret.json"), JSON.stringify({ secret: true }));
  symlinkSync(join(outside.path, "secret.json"), join(root.path, "data", "link.json"));
  pairStore(join(root.path, "data"));
  [client, writer] = await Promise.all([
    connect(["--root", join(root.path, "data")]),
    connect(["--root", join(root.path, "data"), "--allow-writes"]),
  ]);
});

afterAll(async () => {
  await Promise.all([client?.close(), writer?.close()]);
  root[Symbol.dispose]();
  outside[Symbol.dispose]();
});

test("lists both tools; eval_scorecard is read-only", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint }))).toEqual([
    { name: "eval_scorecard", readOnly: true },
    { name: "eval_harvest", readOnly: true },
  ]);
  const w = await writer.listTools();
  expect(w.tools.find((t) => t.name === "eval_harvest")?.annotations?.readOnlyHint).toBe(false);
});

test("eval_scorecard returns {scorecard} from the root and from the working directory", async () => {
  for (const [path, scorecard] of [
    [join(root.path, "data", "sc.json"), { suite: "s", model: "m", cases: 1 }],
    ["../data/sc.json", { suite: "s", model: "m", cases: 1 }],
    ["local.json", { suite: "local" }],
  ] as const) {
    const r = await client.callTool({ name: "eval_scorecard", arguments: { path } });
    expect(r).toEqual({
      content: [{ type: "text", text: JSON.stringify({ scorecard }) }],
      structuredContent: { scorecard },
    });
  }
});

const refusals: Array<{ name: string; args: unknown; error: RegExp }> = [
  {
    name: "outside the roots",
    args: { path: "/etc/hostname.json" },
    error:
      /^scorecard must be a \.json file under the root or working directory, got "\/etc\/hostname\.json"$/,
  },
  {
    name: "escape with ..",
    args: { path: "../../outside/x.json" },
    error: /^scorecard must be a \.json file/,
  },
  {
    name: "symlink out of the root",
    args: { path: "../data/link.json" },
    error: /^scorecard must be a \.json file/,
  },
  { name: "not .json", args: { path: "../data/sc.txt" }, error: /^scorecard must be a \.json file/ },
  { name: "missing file", args: { path: "../data/none.json" }, error: /^read scorecard: ENOENT$/ },
  {
    name: "bad JSON",
    args: { path: "../data/broken.json" },
    error: /^parse scorecard \.\.\/data\/broken\.json: /,
  },
  {
    name: "not an object",
    args: { path: "../data/list.json" },
    error: /^parse scorecard \.\.\/data\/list\.json: expected a JSON object$/,
  },
  { name: "no path", args: {}, error: /Input validation error/ },
  { name: "path not a string", args: { path: 5 }, error: /Input validation error/ },
  { name: "NUL in path", args: { path: "a\u0000.json" }, error: /^scorecard must be a \.json file/ },
];
for (const r of refusals)
  test(`eval_scorecard refuses: ${r.name}`, async () => {
    const res = await client.callTool({
      name: "eval_scorecard",
      arguments: r.args as Record<string, unknown>,
    });
    expect(res.isError).toBe(true);
    expect((res.content as Array<{ text: string }>)[0]?.text).toMatch(r.error);
  });

test("eval_harvest previews provenance and expected tool names only", async () => {
  const res = await client.callTool({
    name: "eval_harvest",
    arguments: { pairs: "../data/pairs.jsonl", pair_key_files: ["../data/pair.key"], experiment: "exp" },
  });
  const preview = res.structuredContent as Record<string, unknown> & {
    cases: Array<{ provenance: Record<string, unknown> }>;
  };
  expect(res.isError).toBeFalsy();
  expect(preview as unknown).toEqual({
    dryRun: true,
    count: 1,
    cases: [
      {
        id: "p1",
        expectedTools: ["Read"],
        provenance: {
          pairId: "p1",
          experiment: "exp",
          session: preview.cases[0]!.provenance.session,
          depth: 0,
          harvestedAt: expect.any(String),
          redaction: expect.any(String),
        },
      },
    ],
    written: [],
  });
  const text = JSON.stringify(res);
  for (const hidden of ["raw-session-id-never-shown", "open a.ts", "file_path", "cat a.ts"])
    expect(text).not.toContain(hidden);
});

test("eval_harvest writes only with --allow-writes and dry_run: false", async () => {
  const args = {
    pairs: "../data/pairs.jsonl",
    pair_key_files: ["../data/pair.key"],
    experiment: "exp",
    out: "../data/suite",
    dry_run: false,
  };
  const refused = await client.callTool({ name: "eval_harvest", arguments: args });
  expect(refused.isError).toBe(true);
  expect((refused.content as Array<{ text: string }>)[0]?.text).toBe(
    "eval_harvest writes cases only when eval-mcp runs with --allow-writes; call it with dry_run: true to preview",
  );
  expect(existsSync(join(root.path, "data", "suite"))).toBe(false);
  const preview = await writer.callTool({ name: "eval_harvest", arguments: { ...args, dry_run: true } });
  expect((preview.structuredContent as { written: string[] }).written).toEqual([]);
  expect(existsSync(join(root.path, "data", "suite"))).toBe(false);
  const wrote = await writer.callTool({ name: "eval_harvest", arguments: args });
  expect(wrote.isError).toBeFalsy();
  expect((wrote.structuredContent as { written: string[] }).written).toEqual([
    join(root.path, "data", "suite", "p1.json"),
  ]);
  expect(readdirSync(join(root.path, "data", "suite"))).toEqual(["p1.json"]);
});

const harvestRefusals: Array<{ name: string; args: Record<string, unknown>; error: RegExp }> = [
  {
    name: "pairs outside",
    args: { pairs: "/etc/passwd", experiment: "exp" },
    error: /^pairs must lie under the root or working directory, got "\/etc\/passwd"$/,
  },
  {
    name: "out outside",
    args: { pairs: "../data/pairs.jsonl", experiment: "exp", out: "/tmp/x" },
    error: /^out must lie under/,
  },
  {
    name: "key outside",
    args: { pairs: "../data/pairs.jsonl", experiment: "exp", pair_key_files: ["../../x.key"] },
    error: /^pair_key_files must lie under/,
  },
  {
    name: "unknown reason",
    args: { pairs: "../data/pairs.jsonl", experiment: "exp", select: ["vibes"] },
    error: /Input validation error/,
  },
  {
    name: "unknown argument",
    args: { pairs: "../data/pairs.jsonl", experiment: "exp", force: true },
    error: /Input validation error/,
  },
  { name: "no experiment", args: { pairs: "../data/pairs.jsonl" }, error: /Input validation error/ },
  {
    name: "judge_loss above 1",
    args: { pairs: "../data/pairs.jsonl", experiment: "exp", judge_loss: 3 },
    error: /Input validation error/,
  },
  {
    name: "bad pair store",
    args: { pairs: "../data/broken.json", experiment: "exp", pair_key_files: ["../data/pair.key"] },
    error: /^Cannot read pair store /,
  },
];
for (const r of harvestRefusals)
  test(`eval_harvest refuses: ${r.name}`, async () => {
    const res = await client.callTool({ name: "eval_harvest", arguments: r.args });
    expect(res.isError).toBe(true);
    expect((res.content as Array<{ text: string }>)[0]?.text).toMatch(r.error);
  });

test("an unknown tool is a tool error and the server keeps serving", async () => {
  const res = await client.callTool({ name: "eval_nope", arguments: {} });
  expect(res.isError).toBe(true);
  expect((await client.listTools()).tools.length).toBe(2);
});

test("a bad --root is a usage error (exit 2), not a crash", async () => {
  const r = await run([BIN.bun, SERVER, "--root", join(outside.path, "missing")], { input: "" });
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
    exitCode: 2,
    stdout: "",
    stderr: `✗ --root must be a directory, got "${join(outside.path, "missing")}"\n`,
  });
});

test("the MCP Inspector CLI calls eval_scorecard", async () => {
  if (!existsSync(INSPECTOR)) throw new Error(`Missing ${INSPECTOR}: run \`npm ci --prefix evals/clis\``);
  const r = await run(
    [
      INSPECTOR,
      "--cli",
      BIN.bun,
      SERVER,
      "--root",
      join(root.path, "data"),
      "--method",
      "tools/call",
      "--tool-name",
      "eval_scorecard",
      "--tool-arg",
      "path=../data/sc.json",
    ],
    { cwd: join(root.path, "cwd"), env: { PATH: process.env.PATH ?? "", HOME: root.path } },
  );
  expect({ exitCode: r.exitCode, result: JSON.parse(r.stdout) }).toEqual({
    exitCode: 0,
    result: {
      content: [{ type: "text", text: JSON.stringify({ scorecard: { suite: "s", model: "m", cases: 1 } }) }],
      structuredContent: { scorecard: { suite: "s", model: "m", cases: 1 } },
    },
  });
});
