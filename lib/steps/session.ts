// Sessions out of a pair store: what one production request says about its place in a session. Each
// request carries the conversation so far; the request after step d carries step d's assistant turn
// at the index where step d's conversation ended. So per request we keep only hashes (the whole
// conversation, and the conversation before its last assistant turn) and that last turn's calls:
// enough to chain steps and recover production's action without keeping any request in memory.
import { type Sha256, sha256, sha256Hex } from "../core/hash.ts";
import { type OfferedTool, protocol, type RawCall } from "../wire/index.ts";
import type { StepProtocol } from "./case.ts";

/** What one request tells about its step. */
export interface RequestFacts {
  /** The tools offered; none means an auxiliary request (title, summary, router), never a step. */
  tools: OfferedTool[];
  /** Items in the conversation (messages, input items or contents). */
  length: number;
  /** Hash of the whole conversation (cache markers ignored). */
  convHash: string;
  /** The last assistant turn: where it starts, the hash of what came before it, its calls. */
  lastTurn?: { at: number; before: string; calls: RawCall[] };
  /** Hash of the exact request body (byte-identical retries share it). */
  bodyHash: string;
}

// Claude Code moves cache_control markers between requests; they are not part of the conversation.
// Cut from the serialised item (a replacer function would slow every item down several times).
const CACHE_MARK = /,?"cache_control":\{[^{}]*\}/g;
function itemText(item: unknown): string {
  const s = JSON.stringify(item) ?? "null";
  return s.includes('"cache_control"') ? s.replace(CACHE_MARK, "").replace(/\{,/g, "{") : s;
}

/** The conversation items of a request in protocol `name`. */
export function conversation(name: StepProtocol, req: Record<string, unknown>): unknown[] {
  const items = req[protocol(name).conversationKey];
  return Array.isArray(items) ? items : [];
}

// A session offers the same tools in every request, and a case's request is read three times: the
// answer depends only on (protocol, tools), so it is remembered per distinct `tools` JSON (the zod
// check is the costly part) and shared; a store's facts then hold one copy per tool set. Callers
// must not mutate it.
const TOOLS_MEMO_MAX = 1024;
const toolsMemo = new Map<string, OfferedTool[]>();

/** The tools a request offers, by the protocol's own reader (a body it cannot read offers none). */
export function offeredTools(name: StepProtocol, req: Record<string, unknown>): OfferedTool[] {
  const key = `${name}\n${JSON.stringify(req.tools)}`;
  let tools = toolsMemo.get(key);
  if (!tools) {
    tools = protocol(name).toolsOfBody(req);
    if (toolsMemo.size >= TOOLS_MEMO_MAX) toolsMemo.clear();
    toolsMemo.set(key, tools);
  }
  return tools;
}

/** The facts of one request (it is hashed once, item by item, so this stays linear in its size). */
export function requestFacts(name: StepProtocol, req: Record<string, unknown>): RequestFacts {
  const items = conversation(name, req);
  const span = protocol(name).lastTurn(items);
  const h: Sha256 = sha256();
  let before: string | undefined;
  // The items' texts go to the hash in two pieces (before the last turn, and the rest), not two
  // updates an item: a store's requests hold a million items, and each update has a fixed cost.
  let text = "";
  items.forEach((item, i) => {
    if (span && i === span.at) {
      before = h.update(text).copy().digest("hex");
      text = "";
    }
    text += `${itemText(item)}\n`;
  });
  const convHash = h.update(text).digest("hex");
  // The body's other fields (tools, system, model...) with the conversation already hashed above.
  const rest = JSON.stringify({ ...req, [protocol(name).conversationKey]: convHash });
  return {
    tools: offeredTools(name, req),
    length: items.length,
    convHash,
    ...(span && before !== undefined ? { lastTurn: { at: span.at, before, calls: span.calls } } : {}),
    bodyHash: sha256Hex(rest),
  };
}

/** Production's action at a step, when the next request of the session continues its conversation. */
export function recoveredAction(step: RequestFacts, next: RequestFacts | undefined): RawCall[] | undefined {
  const t = next?.lastTurn;
  if (!t || t.at !== step.length || t.before !== step.convHash) return undefined;
  return t.calls;
}

/** The depth bucket `sample` draws from: 0, 1-4, 5-19, 20+. */
export function depthBucket(depth: number): "0" | "1-4" | "5-19" | "20+" {
  return depth === 0 ? "0" : depth < 5 ? "1-4" : depth < 20 ? "5-19" : "20+";
}
