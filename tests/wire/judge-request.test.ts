// A judge's request in each protocol: the prompt alone as before (the step judge), and with a
// system text and temperature 0 (the suite's rubric judge) under each protocol's own key.
import { describe, expect, test } from "bun:test";
import { protocol, WIRE_NAMES } from "../../lib/wire/index.ts";

const PLAIN = {
  anthropic: { model: "m", max_tokens: 1024, messages: [{ role: "user", content: "p" }] },
  responses: { model: "m", input: "p" },
  gemini: { contents: [{ role: "user", parts: [{ text: "p" }] }] },
  bedrock: {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 1024,
    messages: [{ role: "user", content: "p" }],
  },
};

const WITH_SYSTEM = {
  anthropic: { ...PLAIN.anthropic, max_tokens: 512, system: "s", temperature: 0 },
  responses: { ...PLAIN.responses, instructions: "s", temperature: 0, max_output_tokens: 512 },
  gemini: {
    ...PLAIN.gemini,
    systemInstruction: { parts: [{ text: "s" }] },
    generationConfig: { temperature: 0, maxOutputTokens: 512 },
  },
  bedrock: { ...PLAIN.bedrock, max_tokens: 512, system: "s", temperature: 0 },
};

describe("judgeRequest", () => {
  for (const name of WIRE_NAMES) {
    test(`${name}: the prompt alone`, () => {
      expect(protocol(name).judgeRequest("m", "p")).toEqual(PLAIN[name]);
    });
    test(`${name}: with a system text, temperature 0 and a token limit`, () => {
      expect(protocol(name).judgeRequest("m", "p", { system: "s", temperature: 0, maxTokens: 512 })).toEqual(
        WITH_SYSTEM[name],
      );
    });
  }
});
