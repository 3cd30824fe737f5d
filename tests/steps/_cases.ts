// Step cases for the replay, scorecard and CLI tests: one valid case per protocol, same tool offered,
// written to a suite folder. Sessions are fake HMACs; nothing here is a real request.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepCase, StepProtocol } from "../../lib/steps/case.ts";
import type { StepResult } from "../../lib/steps/scorecard.ts";

const SCHEMA = { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] };

/** The recorded production request of each protocol (streaming on where the body says so). */
export const REQUESTS: Record<StepProtocol, Record<string, unknown>> = {
  anthropic: {
    model: "claude-prod",
    stream: true,
    max_tokens: 256,
    messages: [{ role: "user", content: "open a.ts" }],
    tools: [{ name: "Read", input_schema: SCHEMA }],
  },
  bedrock: {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 256,
    messages: [{ role: "user", content: "open a.ts" }],
    tools: [{ name: "Read", input_schema: SCHEMA }],
  },
  responses: {
    model: "gpt-prod",
    stream: true,
    input: [{ type: "message", role: "user", content: "open a.ts" }],
    tools: [{ type: "function", name: "Read", parameters: SCHEMA }],
  },
  gemini: {
    contents: [{ role: "user", parts: [{ text: "open a.ts" }] }],
    tools: [{ functionDeclarations: [{ name: "Read", parametersJsonSchema: SCHEMA }] }],
  },
};

/** A session hash for session number `n`. */
export const session = (n: number) => `hmac-sha256:${"0".repeat(16)}:${n.toString(16).padStart(64, "0")}`;

/** A valid case of `protocol` expecting Read(a.ts). */
export function stepCase(protocol: StepProtocol, over: Partial<StepCase> = {}): StepCase {
  return {
    version: 1,
    id: `${protocol}-1`,
    protocol,
    request: REQUESTS[protocol],
    tools: [{ name: "Read", required: ["file_path"] }],
    expected: { calls: [{ name: "Read", args: { file_path: "a.ts" } }] },
    expectedFrom: "production",
    alternatives: [],
    match: "tools",
    reasons: ["diverged"],
    provenance: {
      pairId: `pair-${protocol}`,
      experiment: "exp",
      session: session(1),
      depth: 3,
      harvestedAt: "2026-11-30T03:00:00Z",
      redaction: "1",
    },
    ...over,
  };
}

/** Writes cases as <id>.json into `dir`. */
export function writeSuite(dir: string, cases: readonly StepCase[]): string {
  for (const c of cases)
    writeFileSync(join(dir, `${c.id}.json`), `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
  return dir;
}

/** A passing result of case `id` in session number `s`, fields overridden by `over`. */
export function result(id: string, s: number, over: Partial<StepResult> = {}): StepResult {
  return {
    id,
    session: session(s),
    depth: 0,
    protocol: "anthropic",
    pass: true,
    sameTools: true,
    sameCalls: true,
    valid: true,
    prematureStop: false,
    problems: [],
    tools: ["Read"],
    latencyMs: 5,
    ...over,
  };
}
