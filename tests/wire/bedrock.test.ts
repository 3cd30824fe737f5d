// Bedrock InvokeModel: the Messages body without model, routes, and the AWS event-stream framing
// (CRC32, base64 chunk payloads) round-tripping to the same Messages reply and tool calls.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { anthropic, bedrock } from "../../lib/wire/index.ts";

const USAGE = { input: 100, output: 10 };
const CALL = { id: "toolu_1", name: "Write", args: { file_path: "/w/h.txt", content: "hi\n" } };
const claude = JSON.parse(
  readFileSync(join(import.meta.dirname, "../fixtures/wire/claude-tool-result.json"), "utf8"),
);
const { model: _m, stream: _s, ...invoke } = { ...claude, anthropic_version: "bedrock-2023-05-31" };

describe("requests", () => {
  test("a Claude body as Bedrock sends it", () => {
    const req = bedrock.parseRequest(invoke);
    expect(req).toBe(invoke);
    expect(bedrock.toolsOffered(req).map((t) => t.name)).toEqual(["Bash", "Write", "TodoWrite"]);
    expect(bedrock.toolResults(req)).toEqual([
      { id: "toolu_mock_2", content: "File created successfully at: /tmp/w/hello.txt" },
    ]);
    expect(bedrock.hasToolResult(req)).toBe(true);
  });
  test("a body without messages is refused", () => {
    expect(() => bedrock.parseRequest({ anthropic_version: "x" })).toThrow(
      /^Bad Bedrock InvokeModel request: .* at messages$/,
    );
  });
  const routes = [
    {
      path: "/model/anthropic.claude-opus-4-8-v1%3A0/invoke",
      want: { model: "anthropic.claude-opus-4-8-v1:0", stream: false },
    },
    {
      path: "/model/us.anthropic.claude-sonnet-5/invoke-with-response-stream",
      want: { model: "us.anthropic.claude-sonnet-5", stream: true },
    },
    { path: "/model/x/converse", want: undefined },
    { path: "/v1/messages", want: undefined },
  ];
  for (const r of routes) test(`route ${r.path}`, () => expect(bedrock.routeOf(r.path)).toEqual(r.want));
});

describe("event-stream", () => {
  test("crc32 check value", () => {
    expect(bedrock.crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });
  const replies = [
    { what: "text", resp: bedrock.textResponse("done", USAGE, { id: "m1", model: "b" }), calls: [] },
    {
      what: "tool call",
      resp: bedrock.toolCallResponse([CALL], USAGE, { id: "m2", model: "b", text: "ok" }),
      calls: [CALL],
    },
  ];
  for (const r of replies) {
    test(`round trip: ${r.what}`, () => {
      const bytes = bedrock.toEventStream(r.resp);
      expect(bedrock.parseEventStream(bytes)).toEqual(r.resp);
      expect(bedrock.extractToolCalls(bytes)).toEqual(r.calls);
      const frames = bedrock.decodeFrames(bytes);
      expect(frames[0]?.headers).toEqual({
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
      });
      const first = JSON.parse(new TextDecoder().decode(frames[0]?.payload)) as { bytes: string };
      expect(JSON.parse(Buffer.from(first.bytes, "base64").toString("utf8")).type).toBe("message_start");
      expect(frames.length).toBe(anthropic.toSse(r.resp).split("\n\n").length - 1);
    });
  }
  test("a corrupted byte fails the CRC", () => {
    const bytes = bedrock.toEventStream(replies[0]!.resp);
    bytes[20] = (bytes[20] ?? 0) ^ 0xff;
    expect(() => bedrock.decodeFrames(bytes)).toThrow("Bedrock event-stream: CRC mismatch at byte 0");
  });
  test("a truncated stream is refused", () => {
    expect(() => bedrock.decodeFrames(bedrock.toEventStream(replies[0]!.resp).subarray(0, 10))).toThrow(
      /truncated frame at byte 0/,
    );
  });
  test("an exception frame throws with its type and message", () => {
    const frame = bedrock.encodeFrame(
      {
        ":message-type": "exception",
        ":exception-type": "throttlingException",
        ":content-type": "application/json",
      },
      new TextEncoder().encode(JSON.stringify({ message: "slow down" })),
    );
    expect(() => bedrock.parseEventStream(frame)).toThrow("Bedrock throttlingException: slow down");
  });
});
