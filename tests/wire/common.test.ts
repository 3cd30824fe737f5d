// SSE framing and the shared helpers of lib/wire/common.ts.
import { describe, expect, test } from "bun:test";
import { encodeSse, parseArgs, requiredArgs, sseEvents, sseJson } from "../../lib/wire/common.ts";

describe("sseEvents", () => {
  const cases = [
    {
      name: "named events, LF",
      text: 'event: a\ndata: {"x":1}\n\nevent: b\ndata: 2\n\n',
      want: [
        { event: "a", data: '{"x":1}' },
        { event: "b", data: "2" },
      ],
    },
    { name: "CRLF, no event name", text: 'data: {"y":2}\r\n\r\n', want: [{ data: '{"y":2}' }] },
    {
      name: "multi-line data, comments, id",
      text: ": ping\nid: 7\ndata: a\ndata: b\n\n",
      want: [{ data: "a\nb" }],
    },
    {
      name: "no space after colon, trailing block without blank line",
      text: "event:x\ndata:1",
      want: [{ event: "x", data: "1" }],
    },
    { name: "empty", text: "", want: [] },
  ];
  for (const c of cases) test(c.name, () => expect(sseEvents(c.text)).toEqual(c.want));
});

describe("encodeSse / sseJson", () => {
  test("round trip, skipping [DONE]", () => {
    const text = encodeSse([{ event: "e", data: { a: 1 } }, { data: { b: [2] } }]) + "data: [DONE]\n\n";
    expect(text.startsWith('event: e\ndata: {"a":1}\n\n')).toBe(true);
    expect(sseJson(text)).toEqual([{ event: "e", data: { a: 1 } }, { data: { b: [2] } }]);
  });
  test("CRLF line ends", () => {
    expect(encodeSse([{ data: { a: 1 } }], "\r\n")).toBe('data: {"a":1}\r\n\r\n');
  });
});

describe("requiredArgs / parseArgs", () => {
  const req = [
    { schema: { type: "object", required: ["a", "b"] }, want: ["a", "b"] },
    { schema: { type: "object" }, want: [] },
    { schema: { required: ["a", 3] }, want: ["a"] },
    { schema: null, want: [] },
  ];
  for (const c of req)
    test(`requiredArgs ${JSON.stringify(c.schema)}`, () => expect(requiredArgs(c.schema)).toEqual(c.want));
  const args = [
    { value: '{"cmd":"ls"}', want: { cmd: "ls" } },
    { value: { cmd: "ls" }, want: { cmd: "ls" } },
    { value: "", want: {} },
    { value: "[1]", want: {} },
    { value: "{bad", want: {} },
  ];
  for (const c of args)
    test(`parseArgs ${JSON.stringify(c.value)}`, () => expect(parseArgs(c.value)).toEqual(c.want));
});
