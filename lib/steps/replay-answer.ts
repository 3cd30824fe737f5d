// What a model answered to one replayed step, read from its non-streaming reply in the step's wire
// protocol: the tool calls as lib/steps/action.ts reads them (malformed arguments kept visible, the
// same reading the harvest uses), the visible text for a judge, and Gemini's own "malformed call"
// finish reason. A body without the protocol's shape is no answer at all (the case errors).
import { isRecord } from "../wire/index.ts";
import { anthropicCalls, geminiCalls, type RawCall, responsesCalls } from "./action.ts";
import type { StepProtocol } from "./case.ts";

/** One call of an answer: name, parsed arguments, `malformed` when they were not a JSON object. */
export type AnswerCall = RawCall;

/** A model's answer at one step: its calls (none = it ended its turn) and whether any part was malformed. */
export interface Answer {
  calls: AnswerCall[];
  /** The protocol said the call itself was malformed (Gemini's MALFORMED_FUNCTION_CALL). */
  malformedTurn: boolean;
  /** The visible text of the answer, for a judge. */
  text: string;
}

function messagesAnswer(resp: Record<string, unknown>): Answer {
  const blocks = Array.isArray(resp.content) ? resp.content.filter(isRecord) : [];
  return {
    calls: anthropicCalls(blocks),
    malformedTurn: false,
    text: blocks.flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("\n"),
  };
}

function responsesAnswer(resp: Record<string, unknown>): Answer {
  const items = Array.isArray(resp.output) ? resp.output.filter(isRecord) : [];
  const calls = responsesCalls(items);
  const text = items
    .filter((i) => i.type === "message" && Array.isArray(i.content))
    .flatMap((i) => (i.content as unknown[]).filter(isRecord))
    .flatMap((p) => (typeof p.text === "string" ? [p.text] : []))
    .join("\n");
  return { calls, malformedTurn: false, text };
}

function geminiAnswer(resp: Record<string, unknown>): Answer {
  const cand = Array.isArray(resp.candidates) && isRecord(resp.candidates[0]) ? resp.candidates[0] : {};
  const content = isRecord(cand.content) ? cand.content : {};
  const parts = Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
  return {
    calls: geminiCalls(parts),
    malformedTurn: cand.finishReason === "MALFORMED_FUNCTION_CALL",
    text: parts.flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : [])).join("\n"),
  };
}

/** Reads the answer out of a reply body; a body without the protocol's shape yields null. */
export function answerOf(protocol: StepProtocol, body: unknown): Answer | null {
  if (!isRecord(body)) return null;
  if (protocol === "anthropic" || protocol === "bedrock")
    return Array.isArray(body.content) ? messagesAnswer(body) : null;
  if (protocol === "responses") return Array.isArray(body.output) ? responsesAnswer(body) : null;
  return Array.isArray(body.candidates) ? geminiAnswer(body) : null;
}
