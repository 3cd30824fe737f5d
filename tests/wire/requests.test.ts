// Real request bodies, shaped as the CLIs send them (shared/reference/agent-clis.md), read by each
// protocol's parseRequest / toolsOffered / toolResults / hasToolResult, with unknown fields kept.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropic,
  gemini,
  type OfferedTool,
  PROTOCOLS,
  type ProtocolName,
  protocolForPath,
  responses,
  type ToolResult,
} from "../../lib/wire/index.ts";

const FIX = join(import.meta.dirname, "../fixtures/wire");
const load = (name: string): unknown => JSON.parse(readFileSync(join(FIX, name), "utf8"));

const cases: Array<{ file: string; protocol: ProtocolName; tools: OfferedTool[]; results: ToolResult[] }> = [
  {
    file: "claude-tool-result.json",
    protocol: "anthropic",
    tools: [
      { name: "Bash", required: ["command"] },
      { name: "Write", required: ["file_path", "content"] },
      { name: "TodoWrite", required: [] },
    ],
    results: [{ id: "toolu_mock_2", content: "File created successfully at: /tmp/w/hello.txt" }],
  },
  {
    file: "claude-first.json",
    protocol: "anthropic",
    tools: [{ name: "Read", required: ["file_path"] }],
    results: [],
  },
  {
    file: "codex-tool-result.json",
    protocol: "responses",
    tools: [
      { name: "exec_command", required: ["cmd"] },
      { name: "write_stdin", required: ["session_id"] },
      { name: "apply_patch", required: [] },
    ],
    results: [{ id: "call_mock_1", content: "Process exited with code 0" }],
  },
  {
    file: "gemini-tool-result.json",
    protocol: "gemini",
    tools: [
      { name: "write_file", required: ["file_path", "content"] },
      { name: "run_shell_command", required: ["command"] },
      { name: "list_background_processes", required: [] },
    ],
    results: [
      {
        id: "write_file__write_file_1795997764525_0",
        name: "write_file",
        content: { output: "Successfully created and wrote to new file." },
      },
    ],
  },
  { file: "gemini-router.json", protocol: "gemini", tools: [], results: [] },
];

describe("fixtures of real requests", () => {
  for (const c of cases) {
    test(c.file, () => {
      const wire = PROTOCOLS[c.protocol];
      const body = load(c.file);
      const req = wire.parseRequest(body);
      expect(req).toBe(body as object); // the body itself: key order and unknown fields kept
      expect(wire.toolsOffered(req as never)).toEqual(c.tools);
      expect(wire.toolResults(req as never)).toEqual(c.results);
      expect(wire.hasToolResult(req as never)).toBe(c.results.length > 0);
    });
  }
  test("a Claude system message after the tool result does not hide it", () => {
    const req = anthropic.parseRequest(load("claude-tool-result.json"));
    expect(req.messages.at(-1)?.role).toBe("system");
    expect(anthropic.hasToolResult(req)).toBe(true);
  });
  test("the Gemini router asks for schema-valid JSON and gets it", () => {
    const req = gemini.parseRequest(load("gemini-router.json"));
    const reply = gemini.routerResponse(req, { input: 5, output: 2 });
    const part = reply.candidates[0]?.content.parts[0];
    expect(JSON.parse(String(part?.text))).toEqual({ complexity_reasoning: "mock", complexity_score: 1 });
  });
});

describe("bad requests", () => {
  const bad = [
    {
      name: "anthropic without messages",
      parse: () => anthropic.parseRequest({ model: "m" }),
      msg: /^Bad Anthropic Messages request: .* at messages$/,
    },
    {
      name: "anthropic message without role",
      parse: () => anthropic.parseRequest({ model: "m", messages: [{ content: "x" }] }),
      msg: /at messages\.0\.role$/,
    },
    {
      name: "responses without model",
      parse: () => responses.parseRequest({ input: [] }),
      msg: /^Bad OpenAI Responses request: .* at model$/,
    },
    {
      name: "gemini contents not an array",
      parse: () => gemini.parseRequest({ contents: {} }),
      msg: /^Bad Gemini generateContent request: .* at contents$/,
    },
    {
      name: "not an object",
      parse: () => anthropic.parseRequest("x"),
      msg: /^Bad Anthropic Messages request: /,
    },
  ];
  for (const c of bad) test(c.name, () => expect(c.parse).toThrow(c.msg));
});

describe("protocolForPath", () => {
  const paths = [
    { path: "/v1/messages?beta=true", want: "anthropic" },
    { path: "/v1/messages", want: "anthropic" },
    { path: "/v1/responses", want: "responses" },
    { path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", want: "gemini" },
    { path: "/v1beta/models/gemini-3.5-flash-lite:generateContent", want: "gemini" },
    { path: "/v1/messages/count_tokens", want: undefined },
    { path: "/v1/models", want: undefined },
    { path: "/", want: undefined },
  ];
  for (const c of paths)
    test(c.path, () => expect(protocolForPath(c.path)).toBe(c.want as ProtocolName | undefined));
});
