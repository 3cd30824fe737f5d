// eval-mcp's stdio transport over in-memory streams: messages split across chunks, malformed lines
// answered (-32700 not JSON, -32600 not a JSON-RPC message or over the cap, the long line dropped as
// it streams in), blank lines ignored, and the end of input closes the transport once.
import { expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { LineTransport } from "../../lib/mcp/stdio.ts";

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

test.each([
  {
    name: "one message in two chunks",
    chunks: [ping(1).slice(0, 9), `${ping(1).slice(9)}\n`],
    got: ["ping 1"],
  },
  {
    name: "two messages in one chunk, CRLF",
    chunks: [`${ping(1)}\r\n${ping(2)}\n`],
    got: ["ping 1", "ping 2"],
  },
  { name: "a blank line", chunks: ["\n  \n", `${ping(3)}\n`], got: ["ping 3"] },
  { name: "not JSON", chunks: ["{oops\n", `${ping(4)}\n`], got: ["error null -32700", "ping 4"] },
  {
    name: "JSON, not JSON-RPC",
    chunks: [`${JSON.stringify({ jsonrpc: "2.0", id: 9 })}\n[1]\n`],
    got: ["error 9 -32600", "error null -32600"],
  },
  {
    name: "a line over the cap, streamed in pieces, then a good one",
    chunks: ["x".repeat(50), "x".repeat(50), "x".repeat(50), `\n${ping(5)}\n`],
    got: ["error null -32600", "ping 5"],
  },
  {
    name: "a line over the cap in one chunk",
    chunks: [`${"y".repeat(200)}\n${ping(6)}\n`],
    got: ["error null -32600", "ping 6"],
  },
])("$name", async ({ chunks, got }) => {
  const input = new PassThrough();
  const seen: string[] = [];
  // Replies are recorded as they are written, so they interleave with messages in arrival order.
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        const r = JSON.parse(line) as { id: unknown; error: { code: number } };
        seen.push(`error ${r.id} ${r.error.code}`);
      }
      done();
    },
  });
  const t = new LineTransport(input, output, 64);
  let closed = 0;
  t.onmessage = (m) => seen.push(`${(m as { method: string }).method} ${(m as { id: number }).id}`);
  t.onclose = () => closed++;
  await t.start();
  for (const c of chunks) input.write(c);
  input.end();
  await new Promise((done) => input.once("end", done));
  await t.close();
  expect({ seen, closed }).toEqual({ seen: [...got], closed: 1 });
});
