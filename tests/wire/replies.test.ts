// Reply builders of each protocol: the exact SSE event sequence the CLIs accept, and the round trip
// build -> toSse -> parseSse -> extractToolCalls giving back the calls asked for.
import { describe, expect, test } from "bun:test";
import {
  anthropic,
  gemini,
  PROTOCOLS,
  type ProtocolName,
  responses,
  sseEvents,
  sseJson,
} from "../../lib/wire/index.ts";

const USAGE = { input: 100, output: 10, cached: 40, reasoning: 3 };
const CALLS = [
  { id: "call_1", name: "Write", args: { file_path: "/w/hello.txt", content: "hello\n" } },
  { id: "call_2", name: "Bash", args: { command: "ls -la", description: "list" } },
];
const NAMES: ProtocolName[] = ["anthropic", "responses", "gemini"];

describe("round trip: build -> SSE -> parseSse -> extractToolCalls", () => {
  for (const name of NAMES) {
    const wire = PROTOCOLS[name];
    const builds = [
      { what: "text", resp: wire.textResponse("done", USAGE, { id: "r1", model: "m" }), calls: [] },
      {
        what: "tool calls",
        resp: wire.toolCallResponse(CALLS, USAGE, { id: "r2", model: "m" }),
        calls: CALLS,
      },
      {
        what: "text + tool call",
        resp: wire.toolCallResponse(CALLS.slice(0, 1), USAGE, { id: "r3", model: "m", text: "Creating." }),
        calls: CALLS.slice(0, 1),
      },
    ];
    for (const b of builds) {
      test(`${name}: ${b.what}`, () => {
        const sse = wire.toSse(b.resp as never);
        expect(wire.parseSse(sse)).toEqual(b.resp);
        expect(wire.extractToolCalls(sse)).toEqual(b.calls);
        expect(wire.extractToolCalls(b.resp)).toEqual(b.calls);
        expect(wire.extractToolCalls(JSON.parse(JSON.stringify(b.resp)))).toEqual(b.calls);
      });
    }
  }
  test("ids default per protocol", () => {
    const call = [{ name: "t", args: {} }];
    expect(anthropic.extractToolCalls(anthropic.toolCallResponse(call, USAGE))).toEqual([
      { id: "toolu_mock_1", name: "t", args: {} },
    ]);
    expect(responses.extractToolCalls(responses.toolCallResponse(call, USAGE))).toEqual([
      { id: "call_mock_1", name: "t", args: {} },
    ]);
    expect(gemini.extractToolCalls(gemini.toolCallResponse(call, USAGE))).toEqual([{ name: "t", args: {} }]);
  });
});

describe("Anthropic SSE", () => {
  test("event sequence and payloads of a tool-use reply", () => {
    const resp = anthropic.toolCallResponse(CALLS.slice(0, 1), USAGE, {
      id: "msg_1",
      model: "m",
      text: "Hi",
    });
    const events = sseJson(anthropic.toSse(resp));
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events.map((e) => e.data.type)).toEqual(events.map((e) => e.event));
    expect(events[0]?.data).toEqual({
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "m",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 100,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 40,
          output_tokens: 1,
        },
      },
    });
    expect(events[4]?.data).toEqual({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "call_1", name: "Write", input: {} },
    });
    expect(events[5]?.data).toEqual({
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(CALLS[0]?.args) },
    });
    expect(events[7]?.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 10 },
    });
  });
  test("a text reply ends with end_turn", () => {
    expect(anthropic.textResponse("done", USAGE).stop_reason).toBe("end_turn");
  });
  test("split deltas and a ping are assembled", () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"x","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}',
      'event: ping\ndata: {"type":"ping"}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"comm"}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"and\\":\\"ls\\"}"}}',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}',
      "",
    ].join("\n\n");
    expect(anthropic.parseSse(sse)).toEqual({
      id: "x",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 7 },
    });
  });
  test("a stream without message_start is refused", () => {
    expect(() => anthropic.parseSse("data: {}\n\n")).toThrow("Anthropic stream has no message_start event");
  });
});

describe("OpenAI Responses SSE", () => {
  test("event sequence, sequence numbers and final usage", () => {
    const resp = responses.toolCallResponse(CALLS.slice(0, 1), USAGE, {
      id: "resp_1",
      model: "m",
      text: "Hi",
    });
    const text = responses.toSse(resp);
    const events = sseJson(text);
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(sseEvents(text).every((e) => e.event === (JSON.parse(e.data) as { type: string }).type)).toBe(
      true,
    );
    expect((events.at(-1)?.data.response as { usage: unknown } | undefined)?.usage).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 3 },
      total_tokens: 110,
    });
    expect(events[9]?.data).toEqual({
      type: "response.function_call_arguments.delta",
      sequence_number: 9,
      item_id: "fc_mock_1",
      output_index: 1,
      delta: JSON.stringify(CALLS[0]?.args),
    });
  });
  test("output rebuilt from output_item.done when response.completed has none", () => {
    const resp = responses.toolCallResponse(CALLS, USAGE);
    const blocks = responses.toSse(resp).split("\n\n");
    const text = `${blocks.slice(0, -2).join("\n\n")}\n\n`;
    const completed = `event: response.completed\ndata: ${JSON.stringify({ type: "response.completed", response: { ...resp, output: [] } })}\n\n`;
    expect(responses.parseSse(text + completed)).toEqual(resp);
  });
});

describe("Gemini SSE", () => {
  test("one data chunk ended by CRLF CRLF", () => {
    const resp = gemini.toolCallResponse(
      [{ name: "write_file", args: { file_path: "/w/h", content: "x" } }],
      USAGE,
      {
        id: "g1",
        model: "gemini-2.5-pro",
      },
    );
    expect(gemini.toSse(resp)).toBe(`data: ${JSON.stringify(resp)}\r\n\r\n`);
    expect(resp).toEqual({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ functionCall: { name: "write_file", args: { file_path: "/w/h", content: "x" } } }],
          },
          finishReason: "STOP",
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 10,
        totalTokenCount: 113,
        cachedContentTokenCount: 40,
        thoughtsTokenCount: 3,
      },
      modelVersion: "gemini-2.5-pro",
      responseId: "g1",
    });
  });
  test("several chunks are merged", () => {
    const a = { candidates: [{ content: { role: "model", parts: [{ text: "do" }] }, index: 0 }] };
    const b = { ...gemini.textResponse("ne", { input: 1, output: 2 }, { id: "g", model: "m" }) };
    expect(gemini.parseSse(`data: ${JSON.stringify(a)}\r\n\r\ndata: ${JSON.stringify(b)}\r\n\r\n`)).toEqual({
      ...b,
      candidates: [
        {
          content: { role: "model", parts: [{ text: "do" }, { text: "ne" }] },
          finishReason: "STOP",
          index: 0,
        },
      ],
    });
  });
  test("schema samples", () => {
    const cases = [
      { schema: { type: "STRING", enum: ["a", "b"] }, want: "a" },
      { schema: { type: "number", minimum: 5 }, want: 5 },
      { schema: { type: "ARRAY", items: { type: "BOOLEAN" } }, want: [false] },
      { schema: { type: "object", properties: { n: { type: "integer" } } }, want: { n: 1 } },
    ];
    expect(cases.map((c) => gemini.sampleForSchema(c.schema))).toEqual(cases.map((c) => c.want));
  });
});
