// `proctor mock-model` as a user runs it: it prints its URL (127.0.0.1, a free port) as the one line on
// stdout, answers one request in each protocol (Anthropic, OpenAI Responses, Gemini, Bedrock) from the
// replies file, by model and by the tool results the request carries, and stops with exit 0 on
// SIGTERM; a bad flag or replies file is one line and exit 2 before anything listens; a port in use, 1.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { serveMockCli } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "mock-model.ts");
const KEY = "sk-ant-mock-key-never-logged-0123456789";
const REPLIES = `version: 1
usage: {input: 7, output: 3}
conversations:
  - model: fixer
    replies:
      - shell: ls -la
      - text: Fixed it.
  - replies:
      - tools: [{name: lookup, args: {q: weather}}]
      - error: 529
`;

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const USER = [{ role: "user", content: "fix it" }];
/** The first tool call or text of a reply, in any of the four shapes. */
function firstOf(body: Record<string, unknown>): unknown {
  const blocks = (body.content ?? body.output ?? []) as Record<string, unknown>[];
  const parts = ((body.candidates as { content: { parts: Record<string, unknown>[] } }[] | undefined)?.[0]
    ?.content.parts ?? []) as Record<string, unknown>[];
  for (const b of [...blocks, ...parts]) {
    if (b.type === "tool_use") return { call: b.name, args: b.input };
    if (b.type === "function_call") return { call: b.name, args: JSON.parse(String(b.arguments)) };
    if (b.functionCall)
      return {
        call: (b.functionCall as { name: string }).name,
        args: (b.functionCall as { args: unknown }).args,
      };
    if (b.type === "text") return { text: b.text };
    if (b.text !== undefined) return { text: b.text };
  }
  return body;
}

test("serves the replies file in all four protocols, prints its URL, stops on SIGTERM", async () => {
  using tmp = tempDir("mock-model");
  const file = join(tmp.path, "replies.yaml");
  writeFileSync(file, REPLIES);
  const log = join(tmp.path, "requests.jsonl");
  const mock = await serveMockCli(["--replies", file, "--log", log]);
  const u = mock.url;
  const got = {
    anthropic: firstOf(
      (await post(`${u}/v1/messages`, { model: "fixer", max_tokens: 50, messages: USER })).body,
    ),
    responses: firstOf((await post(`${u}/v1/responses`, { model: "fixer", input: "fix it" })).body),
    gemini: firstOf(
      (
        await post(`${u}/v1beta/models/fixer:generateContent`, {
          contents: [{ role: "user", parts: [{ text: "fix it" }] }],
        })
      ).body,
    ),
    bedrock: firstOf(
      (
        await post(`${u}/model/fixer/invoke`, {
          anthropic_version: "bedrock-2023-05-31",
          max_tokens: 50,
          messages: USER,
        })
      ).body,
    ),
    afterResult: firstOf(
      (
        await post(`${u}/v1/messages`, {
          model: "fixer",
          max_tokens: 50,
          messages: [
            ...USER,
            {
              role: "assistant",
              content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls -la" } }],
            },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
          ],
        })
      ).body,
    ),
    usage: (await post(`${u}/v1/messages`, { model: "other", max_tokens: 50, messages: USER })).body.usage,
    anyModel: firstOf(
      (await post(`${u}/v1/messages`, { model: "other", max_tokens: 50, messages: USER })).body,
    ),
  };
  const end = await mock.stop();
  const logged = readFileSync(log, "utf8");
  const entries = logged
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { protocol: string; auth: string; model: string });
  expect({
    url: /^http:\/\/127\.0\.0\.1:\d+$/.test(u),
    got,
    end,
    log: entries.map((e) => [e.protocol, e.auth, e.model]),
    keyLogged: logged.includes(KEY),
  }).toEqual({
    url: true,
    got: {
      anthropic: {
        call: "Bash",
        args: { command: "ls -la" },
      },
      responses: { call: "exec_command", args: { cmd: "ls -la" } },
      gemini: { call: "run_shell_command", args: { command: "ls -la" } },
      bedrock: {
        call: "Bash",
        args: { command: "ls -la" },
      },
      afterResult: { text: "Fixed it." },
      usage: {
        input_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 3,
      },
      anyModel: { call: "lookup", args: { q: "weather" } },
    },
    end: {
      exitCode: 0,
      stdout: `${u}\n`,
      stderr: `serving 2 conversation(s) at ${u}; SIGINT or SIGTERM stops it\nstopped after 7 request(s)\n`,
    },
    log: [
      ["anthropic", "x-api-key", "fixer"],
      ["responses", "x-api-key", "fixer"],
      ["gemini", "x-api-key", "fixer"],
      ["bedrock", "x-api-key", "fixer"],
      ["anthropic", "x-api-key", "fixer"],
      ["anthropic", "x-api-key", "other"],
      ["anthropic", "x-api-key", "other"],
    ],
    keyLogged: false,
  });
});

describe("refused before anything listens: one line, exit 2, nothing on stdout", () => {
  test.each([
    {
      name: "no --replies",
      file: null,
      args: [],
      line: "✗ missing --replies FILE: proctor mock-model --replies replies.yaml",
    },
    {
      name: "a missing file",
      file: null,
      args: ["--replies", "<T>/nope.yaml"],
      line: '✗ Cannot read replies "<T>/nope.yaml": no such file',
    },
    {
      name: "invalid YAML",
      file: "version: 1\n  conversations: [",
      line: '✗ Cannot load replies "<T>/r.yaml": Nested mappings are not allowed in compact mappings at line 1, column 10:',
    },
    {
      name: "version 2",
      file: "version: 2\nconversations: [{replies: [{text: hi}]}]\n",
      line: '✗ Cannot load replies "<T>/r.yaml": version: Invalid input: expected 1',
    },
    {
      name: "a reply of no known kind",
      file: "version: 1\nconversations: [{replies: [{text: hi}, {say: hi}]}]\n",
      line: '✗ Cannot load replies "<T>/r.yaml": conversations[0].replies[1]: expected one reply: {text}, {tools}, {shell}, {error} or {hang}',
    },
    {
      name: "no conversations",
      file: "version: 1\nconversations: []\n",
      line: '✗ Cannot load replies "<T>/r.yaml": conversations: Too small: expected array to have >=1 items',
    },
    {
      name: "an unknown key",
      file: "version: 1\nconversation: []\n",
      line: '✗ Cannot load replies "<T>/r.yaml": top level: Unrecognized key: "conversation"',
    },
    {
      name: "a port out of range",
      file: "version: 1\nconversations: [{replies: [{text: hi}]}]\n",
      args: ["--port", "70000"],
      line: '✗ --port must be an integer from 0 to 65535, got "70000"',
    },
    {
      name: "a body cap of zero",
      file: "version: 1\nconversations: [{replies: [{text: hi}]}]\n",
      args: ["--max-body-bytes", "0"],
      line: '✗ --max-body-bytes must be an integer of at least 1, got "0"',
    },
  ])("$name", async ({ file, args, line }) => {
    using tmp = tempDir("mock-model");
    const path = join(tmp.path, "r.yaml");
    if (file !== null) writeFileSync(path, file);
    const argv = (args ?? []).map((a) => a.replace("<T>", tmp.path));
    const r = await run([process.execPath, ENTRY, ...(file !== null ? ["--replies", path] : []), ...argv]);
    expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr.replaceAll(tmp.path, "<T>") }).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: `${line}\n`,
    });
  });
});

test("a port in use: exit 1, one line", async () => {
  using tmp = tempDir("mock-model");
  writeFileSync(join(tmp.path, "r.yaml"), "version: 1\nconversations: [{replies: [{text: hi}]}]\n");
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const { port } = busy.address() as AddressInfo;
  try {
    const r = await run([
      process.execPath,
      ENTRY,
      "--replies",
      join(tmp.path, "r.yaml"),
      "--port",
      String(port),
    ]);
    expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      exitCode: 1,
      stdout: "",
      stderr: `✗ Cannot serve on 127.0.0.1:${port}: EADDRINUSE\n`,
    });
  } finally {
    await new Promise<void>((resolve) => busy.close(() => resolve()));
  }
});

// issue 26: `--port N` is the way to a URL known in advance (another terminal, a script's env),
// without reading the one stdout line: the mock serves there and says so.
test("--port N: the URL is http://127.0.0.1:N, and it answers there", async () => {
  using tmp = tempDir("mock-model-port");
  writeFileSync(join(tmp.path, "r.yaml"), "version: 1\nconversations: [{replies: [{text: hi}]}]\n");
  // A free port: bound by the kernel (port 0), read, released, then given to the mock.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const mock = await serveMockCli(["--replies", join(tmp.path, "r.yaml"), "--port", String(port)]);
  const reply = await post(`http://127.0.0.1:${port}/v1/messages`, {
    model: "m",
    max_tokens: 8,
    messages: USER,
  });
  const end = await mock.stop();
  expect({ url: mock.url, status: reply.status, first: firstOf(reply.body), exitCode: end.exitCode }).toEqual(
    {
      url: `http://127.0.0.1:${port}`,
      status: 200,
      first: { text: "hi" },
      exitCode: 0,
    },
  );
});
