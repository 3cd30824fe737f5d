// eval-mcp's stdio transport: newline-delimited JSON-RPC on stdin/stdout, as the SDK's
// StdioServerTransport speaks it, with the edge cases answered instead of dropped. The SDK reports a
// line that is not JSON (or not a JSON-RPC message) to onerror only, so the client waits forever for
// a reply: here it gets -32700 (parse error) or -32600 (invalid request). A line longer than the cap
// is discarded as it streams in (never buffered whole) and answered -32600. The end of stdin closes
// the transport, and with it the server.
import { Buffer } from "node:buffer";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** The longest message accepted (the SDK's own default buffer cap). */
export const MAX_MESSAGE_BYTES = 10 << 20;

type Id = string | number | null;

/** A Transport over a readable and a writable stream (process.stdin/stdout by default). */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false; // inside a line already over the cap: drop bytes until its newline
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onInputError);
  }

  private readonly onEnd = () => void this.close();
  private readonly onInputError = (error: Error) => this.onerror?.(error);

  private readonly onData = (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      from = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.size + piece.length > this.maxBytes) {
        this.tooLong();
        this.skipping = false;
        continue;
      }
      const line = Buffer.concat([...this.chunks, piece]).toString("utf8");
      this.chunks = [];
      this.size = 0;
      this.handle(line);
    }
    const rest = chunk.subarray(from);
    if (this.skipping || rest.length === 0) return;
    if (this.size + rest.length > this.maxBytes) {
      this.tooLong();
      this.skipping = true;
    } else {
      this.chunks.push(Buffer.from(rest));
      this.size += rest.length;
    }
  };

  private tooLong(): void {
    this.chunks = [];
    this.size = 0;
    this.reply(null, -32600, `Invalid Request: message longer than ${this.maxBytes} bytes`);
  }

  private handle(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      this.reply(null, -32700, "Parse error");
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(data);
    if (!message.success) {
      const id = (data as { id?: unknown } | null)?.id;
      this.reply(typeof id === "string" || typeof id === "number" ? id : null, -32600, "Invalid Request");
      return;
    }
    this.onmessage?.(message.data);
  }

  private reply(id: Id, code: number, message: string): void {
    void this.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    return new Promise((done) => {
      if (this.output.write(text)) done();
      else this.output.once("drain", done);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onInputError);
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
