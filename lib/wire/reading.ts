// Reading traffic a client and a model exchanged, protocol-neutral: what a reply cost (Tokens) and
// said (Reply), and what a request's conversation holds (Said, one entry per message: text, tool
// calls, tool results), for the suite's meter and transcripts. Each protocol module reads its own
// shapes into these (readReply, readConversation); exchange.ts picks the protocol by the path.
import { isRecord, type RawCall, WireError } from "./common.ts";

/** The tokens of one model reply. `input` and `output` are totals; the other three are parts of them. */
export interface Tokens {
  /** Every input token: fresh, read from the cache and written to it. */
  input: number;
  /** Every output token, reasoning included. */
  output: number;
  /** Of `input`: read from the prompt cache. */
  cacheRead: number;
  /** Of `input`: written to the prompt cache. */
  cacheWrite: number;
  /** Of `output`: reasoning (thinking) tokens, where the protocol counts them apart. */
  reasoning: number;
}

/** What a model reply said and used; `tokens` absent when it carried no usage (cut off before it). */
export interface Reply {
  model?: string;
  tokens?: Tokens;
  text: string;
  calls: (RawCall & { id?: string })[];
  /** Why the model stopped, in the protocol's words (end_turn, tool_use, STOP, completed...). */
  stop?: string;
}

/** One tool result a client sent back: the call it answers (id, or Gemini's name), its text. */
export interface SaidResult {
  id?: string;
  name?: string;
  text: string;
  isError?: boolean;
}

/** One message of a conversation: who said it, its text, the calls it made and results it carries. */
export interface Said {
  role: "system" | "user" | "assistant" | "tool";
  text?: string;
  calls?: (RawCall & { id?: string })[];
  results?: SaidResult[];
}

/** Zero tokens. */
export const NO_TOKENS: Readonly<Tokens> = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** A count from a usage field: a finite number at least 0, else 0. */
export function tokenCount(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** The body as text, and whether it is a stream of events (SSE: it opens with a field or a comment). */
export function bodyText(body: Uint8Array): { text: string; sse: boolean } {
  const text = new TextDecoder().decode(body);
  return { text, sse: /^\s*(?:event|data|id|retry)?:/.test(text) };
}

/** Text of a content value: a string, or the text of its text-like blocks; other blocks named in brackets. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? "" : JSON.stringify(content);
  return content
    .map((b) => {
      if (typeof b === "string") return b;
      if (!isRecord(b)) return "";
      if (typeof b.text === "string") return b.text;
      if (typeof b.content === "string" || Array.isArray(b.content)) return contentText(b.content);
      return `[${String(b.type ?? "block")}]`;
    })
    .filter((s) => s !== "")
    .join("\n");
}

/** A message kept only when it says something: text, calls or results. */
export function said(entry: Said): Said[] {
  const out: Said = { role: entry.role };
  if (entry.text !== undefined && entry.text !== "") out.text = entry.text;
  if (entry.calls && entry.calls.length > 0) out.calls = entry.calls;
  if (entry.results && entry.results.length > 0) out.results = entry.results;
  return out.text === undefined && !out.calls && !out.results ? [] : [out];
}

/**
 * A reply body's document: its SSE stream assembled by `assemble`, else its JSON (`what` names the
 * protocol in the WireError when it is neither).
 */
export function replyDocument(body: Uint8Array, what: string, assemble: (sse: string) => unknown): unknown {
  const { text, sse } = bodyText(body);
  if (sse) return assemble(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WireError(`${what} reply is neither JSON nor an event stream`);
  }
}

/** A Reply from what a protocol read, leaving out the parts that are absent. */
export function replyFrom(o: {
  model: unknown;
  tokens?: Tokens;
  text: string;
  calls: Reply["calls"];
  stop: unknown;
}): Reply {
  return {
    ...(typeof o.model === "string" ? { model: o.model } : {}),
    ...(o.tokens ? { tokens: o.tokens } : {}),
    text: o.text,
    calls: o.calls,
    ...(typeof o.stop === "string" ? { stop: o.stop } : {}),
  };
}
