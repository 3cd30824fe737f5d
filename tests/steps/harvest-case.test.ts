// buildCase (lib/steps/harvest-case.ts): one selected step -> one redacted case, or a RedactionError
// when the redacted request is no longer a request of its protocol, or no longer the same step.
import { describe, expect, test } from "bun:test";
import { RedactionError } from "../../lib/redact/request.ts";
import { patternDetectors, STRICT_DETECTORS } from "../../lib/redact/strict.ts";
import { buildCase } from "../../lib/steps/harvest-case.ts";

const provenance = {
  pairId: "p1",
  experiment: "exp",
  session: `hmac-sha256:${"a".repeat(16)}:${"b".repeat(64)}`,
  depth: 0,
  harvestedAt: "2026-12-01T00:00:00Z",
  redaction: "strict-2",
};
const choice = {
  expected: [{ name: "Read", args: { path: "a.ts" } }],
  expectedFrom: "production" as const,
  reasons: ["diverged" as const],
};
const request = (messages: unknown) => ({
  model: "m",
  max_tokens: 10,
  messages,
  tools: [
    {
      name: "Read",
      input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
});
const build = (req: Record<string, unknown>, patterns: string[] = []) =>
  buildCase(choice, req, "anthropic", "p1", provenance, {
    detectors: [...STRICT_DETECTORS, ...patternDetectors(patterns)],
    keepFields: [],
  });

describe("buildCase", () => {
  test("a clean request becomes its case unchanged", () => {
    const req = request([{ role: "user", content: "read a.ts" }]);
    expect(build(req).case).toEqual({
      version: 1,
      id: "p1",
      protocol: "anthropic",
      request: req,
      tools: [{ name: "Read", required: ["path"] }],
      expected: { calls: choice.expected },
      expectedFrom: "production",
      alternatives: [],
      match: "tools",
      reasons: ["diverged"],
      provenance,
    });
  });

  const refused: Array<{ name: string; req: Record<string, unknown>; patterns: string[] }> = [
    // The redacted role is no request's role any more: the redacted body must parse.
    {
      name: "redaction breaks the body",
      req: request([{ role: "user", content: "hi" }]),
      patterns: ["^user$"],
    },
    // Redacting the tool's name changes the offered tools: another step.
    {
      name: "redaction changes the step",
      req: request([{ role: "user", content: "hi" }]),
      patterns: ["\\bRead\\b"],
    },
    // Not a request of its protocol (its shape is the same redacted or not: only the parse refuses it).
    { name: "the body never parsed", req: request("not a list"), patterns: [] },
  ];
  for (const c of refused)
    test(`refused: ${c.name}`, () => {
      let error: unknown;
      try {
        build(c.req, c.patterns);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RedactionError);
      expect((error as Error).message).toBe(
        'Cannot redact case "p1": the redacted request no longer parses as the same step',
      );
    });
});
