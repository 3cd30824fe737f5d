// Each protocol's readReply reads a reply as it came over the wire, non-streaming and streamed (SSE,
// Bedrock's event-stream, Gemini's JSON array), into the same Reply: text, calls with ids, tokens as
// totals with their cached and reasoning parts. readConversation reads the CLIs' real request bodies;
// readModelCall finds the protocol by path (a gateway prefix allowed) and never throws.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readModelCall } from "../../lib/wire/exchange.ts";
import {
  anthropic,
  bedrock,
  gemini,
  type Reply,
  responses,
  type Said,
  type WireName,
} from "../../lib/wire/index.ts";

const FIX = join(import.meta.dirname, "../fixtures/wire");
const enc = (s: string) => new TextEncoder().encode(s);
const usage = { input: 1200, output: 80, cached: 1000, reasoning: 30 };
const call = { id: "c1", name: "Bash", args: { command: "ls" } };

/** What each protocol's usage means in Tokens, for `usage` above. */
const TOKENS = {
  // input_tokens excludes cache reads there: 1200 fresh + 1000 read; reasoning is inside output.
  anthropic: { input: 2200, output: 80, cacheRead: 1000, cacheWrite: 0, reasoning: 0 },
  bedrock: { input: 2200, output: 80, cacheRead: 1000, cacheWrite: 0, reasoning: 0 },
  responses: { input: 1200, output: 80, cacheRead: 1000, cacheWrite: 0, reasoning: 30 },
  // Gemini counts thoughts apart from candidates: 80 + 30.
  gemini: { input: 1200, output: 110, cacheRead: 1000, cacheWrite: 0, reasoning: 30 },
};

const bodies = {
  anthropic: {
    text: anthropic.textResponse("done", usage, { model: "m1" }),
    tools: anthropic.toolCallResponse([call], usage, { model: "m1", text: "Listing." }),
    stream: (r: object) => enc(anthropic.toSse(r as never)),
  },
  bedrock: {
    text: bedrock.textResponse("done", usage, { model: "m1" }),
    tools: bedrock.toolCallResponse([call], usage, { model: "m1", text: "Listing." }),
    stream: (r: object) => bedrock.toEventStream(r as never),
  },
  responses: {
    text: responses.textResponse("done", usage, { model: "m1" }),
    tools: responses.toolCallResponse([{ ...call, id: "c1" }], usage, { model: "m1", text: "Listing." }),
    stream: (r: object) => enc(responses.toSse(r as never)),
  },
  gemini: {
    text: gemini.textResponse("done", usage, { model: "m1" }),
    tools: gemini.toolCallResponse([call], usage, { model: "m1", text: "Listing." }),
    stream: (r: object) => enc(gemini.toSse(r as never)),
  },
} as const;

const READ = { anthropic, bedrock, responses, gemini } as const;
const STOP = {
  anthropic: ["end_turn", "tool_use"],
  bedrock: ["end_turn", "tool_use"],
  responses: ["completed", "completed"],
  gemini: ["STOP", "STOP"],
} as const;

describe("readReply: the same Reply from a JSON body and from its stream", () => {
  const names = Object.keys(bodies) as (keyof typeof bodies)[];
  const cases = names.flatMap((name) =>
    (["json", "stream"] as const).flatMap((form) =>
      (["text", "tools"] as const).map((kind) => ({ name, form, kind })),
    ),
  );
  test.each(cases)("$name $form $kind", ({ name, form, kind }) => {
    const b = bodies[name];
    const resp = b[kind];
    const raw = form === "json" ? enc(JSON.stringify(resp)) : b.stream(resp);
    const expected: Reply = {
      model: "m1",
      tokens: TOKENS[name],
      text: kind === "text" ? "done" : "Listing.",
      calls: kind === "text" ? [] : [{ name: "Bash", args: { command: "ls" }, id: "c1" }],
      stop: STOP[name][kind === "text" ? 0 : 1],
    };
    expect(READ[name].readReply(raw)).toEqual(expected);
  });

  test("a Gemini JSON array of chunks (streamGenerateContent without alt=sse) sums its parts", () => {
    const chunk = (text: string, last: boolean) => ({
      candidates: [
        {
          content: { role: "model", parts: [{ text }] },
          index: 0,
          ...(last ? { finishReason: "STOP" } : {}),
        },
      ],
      ...(last ? { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4 } } : {}),
    });
    expect(gemini.readReply(enc(JSON.stringify([chunk("do", false), chunk("ne", true)])))).toEqual({
      tokens: { input: 10, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      text: "done",
      calls: [],
      stop: "STOP",
    });
  });

  test("a stream cut before its usage reads without tokens; one with nothing readable throws a WireError", () => {
    const sse = responses.toSse(responses.textResponse("done", usage));
    const cut = sse.slice(0, sse.indexOf("event: response.completed"));
    expect(responses.readReply(enc(cut)).tokens).toBeUndefined();
    expect(() => anthropic.readReply(enc("event: ping\ndata: {}\n\n"))).toThrow(
      "Anthropic stream has no message_start event",
    );
    expect(() => responses.readReply(enc("{not json"))).toThrow(
      "OpenAI Responses reply is neither JSON nor an event stream",
    );
  });
});

describe("readConversation: the CLIs' real requests", () => {
  const load = (name: string) => JSON.parse(readFileSync(join(FIX, name), "utf8")) as Record<string, unknown>;
  const cut = (s: Said[]) => s.map((e) => ({ ...e, ...(e.text ? { text: e.text.slice(0, 40) } : {}) }));
  const cases: Array<{
    file: string;
    read: typeof anthropic | typeof responses | typeof gemini;
    expected: Said[];
  }> = [
    {
      file: "claude-tool-result.json",
      read: anthropic,
      expected: [
        { role: "system", text: "You are Claude Code, Anthropic's officia" },
        { role: "system", text: "Available agent types: general-purpose, " },
        { role: "user", text: "create hello.txt" },
        {
          role: "assistant",
          text: "Creating the file.",
          calls: [
            {
              name: "Write",
              args: { file_path: "/tmp/w/hello.txt", content: "hello\n" },
              id: "toolu_mock_2",
            },
          ],
        },
        {
          role: "tool",
          results: [{ id: "toolu_mock_2", text: "File created successfully at: /tmp/w/hello.txt" }],
        },
        { role: "system", text: "USD budget: $0.00075/$1; $0.99925 remain" },
      ],
    },
    {
      file: "codex-tool-result.json",
      read: responses,
      expected: [
        { role: "system", text: "You are Codex, a coding agent." },
        { role: "system", text: "<permissions instructions>" },
        { role: "user", text: "<environment_context>" },
        { role: "user", text: "create hello.txt" },
        { role: "assistant", text: "Creating it." },
        {
          role: "assistant",
          calls: [{ name: "exec_command", args: { cmd: "echo hello > hello.txt" }, id: "call_mock_1" }],
        },
        { role: "tool", results: [{ id: "call_mock_1", text: "Process exited with code 0" }] },
      ],
    },
    {
      file: "gemini-tool-result.json",
      read: gemini,
      expected: [
        { role: "system", text: "You are an interactive CLI agent." },
        { role: "user", text: "create hello.txt" },
        {
          role: "assistant",
          calls: [{ name: "write_file", args: { file_path: "/tmp/w/hello.txt", content: "hello\n" } }],
        },
        {
          role: "tool",
          results: [
            {
              id: "write_file__write_file_1795997764525_0",
              name: "write_file",
              text: "Successfully created and wrote to new file.",
            },
          ],
        },
      ],
    },
  ];
  test.each(cases)("$file", ({ file, read, expected }) => {
    expect(cut(read.readConversation(load(file)))).toEqual(expected);
  });
});

describe("readModelCall: the protocol by path, never a throw", () => {
  const body = enc(JSON.stringify({ model: "m1", messages: [{ role: "user", content: "hi" }] }));
  const reply = enc(
    anthropic.toSse(anthropic.textResponse("done", { input: 5, output: 2 }, { model: "m1" })),
  );
  const cases: Array<{
    name: string;
    path: string;
    status?: number;
    protocol?: WireName;
    model?: string;
    reply: boolean;
  }> = [
    {
      name: "Claude Code's path",
      path: "/v1/messages?beta=true",
      status: 200,
      protocol: "anthropic",
      model: "m1",
      reply: true,
    },
    {
      name: "behind a gateway's prefix",
      path: "/gw/anthropic/v1/messages",
      status: 200,
      protocol: "anthropic",
      model: "m1",
      reply: true,
    },
    {
      name: "an error status: no reply read",
      path: "/v1/messages",
      status: 529,
      protocol: "anthropic",
      model: "m1",
      reply: false,
    },
    { name: "no reply at all", path: "/v1/messages", protocol: "anthropic", model: "m1", reply: false },
    {
      name: "Gemini's model is the path's",
      path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      status: 200,
      protocol: "gemini",
      model: "gemini-2.5-pro",
      reply: true,
    },
    {
      name: "Bedrock's model is the path's",
      path: "/model/us.anthropic.claude-opus-4-8/invoke",
      status: 200,
      protocol: "bedrock",
      model: "us.anthropic.claude-opus-4-8",
      reply: true,
    },
    { name: "HEAD / is no model call", path: "/", status: 200, reply: false },
  ];
  test.each(cases)("$name", (c) => {
    const got = readModelCall(c.path, body, c.status, reply);
    expect(
      got === undefined
        ? undefined
        : {
            protocol: got.protocol,
            model: got.model,
            reply: got.reply !== undefined || got.unreadable !== undefined,
          },
    ).toEqual(
      c.protocol === undefined ? undefined : { protocol: c.protocol, model: c.model, reply: c.reply },
    );
  });

  test("a body of another shape leaves its part unread and says why", () => {
    const got = readModelCall("/v1/responses", enc("not json"), 200, enc("<html>gateway error</html>"));
    expect(got).toEqual({
      protocol: "responses",
      conversation: [],
      unreadable: "OpenAI Responses reply is neither JSON nor an event stream",
    });
  });
});
