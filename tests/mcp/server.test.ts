// eval-mcp through the SDK's real client over stdio (the server spawned as `bun scripts/eval-mcp.ts`),
// raw stdio, and once through the MCP Inspector CLI from the npm registry (evals/clis). The attacks:
// a racer swapping a directory for a link out of the root while calls run, files whose content must
// not come back in an error, a FIFO under the root, malformed JSON-RPC, writes over existing files.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { run } from "../../lib/core/proc.ts";
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
function pairStore(dir: string, id = "p1", file = "pairs.jsonl"): void {
  const row = {
    id,
    time: "2026-11-30T01:00:00Z",
    experiment: "exp",
    session_id: "raw-session-id-never-shown",
    protocol: "anthropic",
    request: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "open a.ts" }], tools: TOOLS },
    control: side("Read", { file_path: "a.ts" }),
    candidate: side("Bash", { command: "cat a.ts" }),
  };
  writeFileSync(join(dir, file), `${JSON.stringify(row)}\n`);
  if (!existsSync(join(dir, "pair.key")))
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
    error: /^read scorecard: a symbolic link where a file or directory was expected$/,
  },
  { name: "not .json", args: { path: "../data/sc.txt" }, error: /^scorecard must be a \.json file/ },
  { name: "missing file", args: { path: "../data/none.json" }, error: /^read scorecard: no such file$/ },
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

/**
 * A child that swaps `dir` for a link to `target` and back, in a loop, until stopped; resolves once
 * it runs. A step that fails (the server made `dir` again while it was away) is skipped, not fatal.
 */
async function racer(dir: string, target: string): Promise<{ stop: () => Promise<void> }> {
  const script = `const f = require("node:fs"); const [d, t] = process.argv.slice(-2);
    const step = (g) => { try { g(); } catch {} };
    for (let i = 0; ; i++) {
      step(() => f.renameSync(d, d + ".real")); step(() => f.symlinkSync(t, d));
      step(() => f.unlinkSync(d)); step(() => f.renameSync(d + ".real", d));
      if (i === 0) process.stdout.write("running\\n");
    }`;
  const child: ChildProcess = spawn(BIN.bun, ["-e", script, dir, target], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((running) => child.stdout?.once("data", running));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  return {
    stop: async () => {
      child.kill();
      await exited;
      if (!existsSync(`${dir}/.`) && existsSync(`${dir}.real`)) spawnSync("mv", ["-T", `${dir}.real`, dir]);
    },
  };
}

const textOf = (r: Record<string, unknown>) => (r.content as Array<{ text: string }>)[0]?.text ?? "";

test("a directory swapped for a link out of the root never yields outside content (300 eval_scorecard calls)", async () => {
  mkdirSync(join(root.path, "data", "race"));
  writeFileSync(join(root.path, "data", "race", "sc.json"), JSON.stringify({ where: "inside" }));
  mkdirSync(join(outside.path, "race"));
  writeFileSync(join(outside.path, "race", "sc.json"), JSON.stringify({ where: "OUTSIDE" }));
  const r = await racer(join(root.path, "data", "race"), join(outside.path, "race"));
  const results = await Promise.all(
    Array.from({ length: 300 }, () =>
      client.callTool({ name: "eval_scorecard", arguments: { path: "../data/race/sc.json" } }),
    ),
  );
  await r.stop();
  const outcomes = new Set(results.map((x) => (x.isError ? textOf(x) : JSON.stringify(x.structuredContent))));
  const allowed = [
    JSON.stringify({ scorecard: { where: "inside" } }),
    "read scorecard: no such file",
    "read scorecard: a symbolic link where a file or directory was expected",
    "read scorecard: a path component is not a directory", // the link swapped back between two checks
  ];
  expect([...outcomes].filter((o) => !allowed.includes(o))).toEqual([]);
});

test("eval_harvest reads and writes nothing outside the root while its directory is swapped (150 calls)", async () => {
  const hv = join(root.path, "data", "hv");
  mkdirSync(hv);
  pairStore(hv, "inside-pair");
  mkdirSync(join(outside.path, "hv"));
  pairStore(join(outside.path, "hv"), "OUTSIDE-pair");
  const before = readdirSync(join(outside.path, "hv")).sort();
  const r = await racer(hv, join(outside.path, "hv"));
  const results = await Promise.all(
    Array.from({ length: 150 }, (_, i) =>
      writer.callTool({
        name: "eval_harvest",
        arguments: {
          pairs: "../data/hv/pairs.jsonl",
          pair_key_files: ["../data/pair.key"],
          experiment: "exp",
          out: `../data/hv/suite-${i}`,
          dry_run: false,
        },
      }),
    ),
  );
  await r.stop();
  expect({
    leaked: results.filter((x) => JSON.stringify(x).includes("OUTSIDE")).length,
    outside: readdirSync(join(outside.path, "hv")).sort(),
  }).toEqual({ leaked: 0, outside: before });
});

test("errors name the file and the position, never its content", async () => {
  // A key file (fixed bytes, so the parse error's position is fixed too) read as a store and a history.
  const key = Buffer.alloc(32, 0xab).toString("base64");
  writeFileSync(join(root.path, "data", "other.key"), key);
  const secret = "sk-ant-api03-NEVERSHOWNNEVERSHOWNNEVERSHOWN";
  writeFileSync(join(root.path, "data", "secret.json"), `{"token": ${secret}}`);
  const calls = [
    {
      client: client,
      name: "eval_harvest",
      args: { pairs: "../data/other.key", experiment: "exp", pair_key_files: ["../data/pair.key"] },
      text: `Cannot read pair store "${join(root.path, "data", "other.key")}": line 1: not JSON: Expecting value at line 1 column 1`,
    },
    {
      client: client,
      name: "eval_harvest",
      args: {
        pairs: "../data/pairs.jsonl",
        experiment: "exp",
        pair_key_files: ["../data/pair.key"],
        history: "../data/other.key",
        select: ["judge-loss"],
      },
      text: `Cannot parse history "${join(root.path, "data", "other.key")}": line 1: Expecting value at line 1 column 1`,
    },
    {
      client: client,
      name: "eval_scorecard",
      args: { path: "../data/secret.json" },
      text: "parse scorecard ../data/secret.json: Expecting value at line 1 column 11",
    },
  ];
  for (const c of calls) {
    const res = await c.client.callTool({ name: c.name, arguments: c.args });
    expect({ isError: res.isError, text: textOf(res) }).toEqual({ isError: true, text: c.text });
    for (const hidden of [key, key.slice(0, 12), secret, "NEVERSHOWN"])
      expect(JSON.stringify(res)).not.toContain(hidden);
  }
});

test("a FIFO or a socket under the root is refused at once and the server keeps answering", async () => {
  expect(spawnSync("mkfifo", [join(root.path, "data", "fifo.json")]).status).toEqual(0);
  const sock = createServer();
  await new Promise<void>((listening) => sock.listen(join(root.path, "data", "sock.json"), listening));
  const s = await client.callTool({ name: "eval_scorecard", arguments: { path: "../data/sock.json" } });
  await new Promise((closed) => sock.close(closed));
  const a = await client.callTool({ name: "eval_scorecard", arguments: { path: "../data/fifo.json" } });
  const b = await client.callTool({
    name: "eval_harvest",
    arguments: { pairs: "../data/fifo.json", experiment: "exp", pair_key_files: ["../data/pair.key"] },
  });
  expect([textOf(s), textOf(a), textOf(b), (await client.listTools()).tools.length]).toEqual([
    "read scorecard: not a regular file",
    "read scorecard: not a regular file",
    `Cannot read pair store "${join(root.path, "data", "fifo.json")}": not a regular file`,
    2,
  ]);
});

test("raw stdio: malformed lines get -32700/-32600, a FIFO call is answered, stdin's end ends the server", async () => {
  if (!existsSync(join(root.path, "data", "fifo2.json")))
    expect(spawnSync("mkfifo", [join(root.path, "data", "fifo2.json")]).status).toEqual(0);
  const lines = [
    "this is not json",
    JSON.stringify({ jsonrpc: "2.0", id: 7 }),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "eval_scorecard", arguments: { path: "../data/fifo2.json" } },
    }),
  ];
  const r = await run([BIN.bun, SERVER, "--root", join(root.path, "data")], {
    cwd: join(root.path, "cwd"),
    input: `${lines.join("\n")}\n`,
    timeoutMs: 60_000,
  });
  const replies = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: unknown; error?: unknown; result?: { content?: unknown } });
  expect({
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    replies: replies.map((x) => ({ id: x.id, error: x.error, content: x.result?.content })),
  }).toEqual({
    exitCode: 0,
    timedOut: false,
    replies: [
      { id: null, error: { code: -32700, message: "Parse error" }, content: undefined },
      { id: 7, error: { code: -32600, message: "Invalid Request" }, content: undefined },
      { id: 1, error: undefined, content: undefined },
      { id: 2, error: undefined, content: [{ type: "text", text: "read scorecard: not a regular file" }] },
    ],
  });
});

test('with --allow-writes, eval_harvest never writes over a file or chmods a directory (pair id `package`, out ".")', async () => {
  const cwd = join(root.path, "cwd");
  pairStore(join(root.path, "data"), "package", "pkg.jsonl");
  writeFileSync(join(cwd, "package.json"), '{"name":"victim"}\n');
  mkdirSync(join(root.path, "data", "full"));
  writeFileSync(join(root.path, "data", "full", "x.txt"), "mine");
  const state = () => ({
    pkg: readFileSync(join(cwd, "package.json"), "utf8"),
    dirs: [cwd, join(root.path, "data"), join(root.path, "data", "full")].map((d) => ({
      mode: statSync(d).mode,
      entries: readdirSync(d).sort(),
    })),
  });
  const before = state();
  const texts: string[] = [];
  for (const out of [".", "../data", "../data/full", "../cwd/package.json"]) {
    const res = await writer.callTool({
      name: "eval_harvest",
      arguments: {
        pairs: "../data/pkg.jsonl",
        pair_key_files: ["../data/pair.key"],
        experiment: "exp",
        out,
        dry_run: false,
      },
    });
    texts.push(textOf(res));
  }
  const refused = (d: string) =>
    `Cannot write cases to "${d}": it exists and is not an empty directory (harvest writes a new suite directory)`;
  expect({ texts, after: state() }).toEqual({
    texts: [
      `Cannot write cases to "${cwd}": out must name a new directory below the root`,
      `Cannot write cases to "${join(root.path, "data")}": out must name a new directory below the root`,
      refused(join(root.path, "data", "full")),
      refused(join(cwd, "package.json")),
    ],
    after: before,
  });
});
