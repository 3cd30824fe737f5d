// One selected step -> one redacted StepCase, checked: the redacted request must still parse as the
// same step (same protocol shape, same offered tools, same conversation items in the same roles) and
// the expected calls must keep their tool names and argument names. Anything else is a RedactionError.

import type { Detector } from "../redact/index.ts";
import { RedactionError, redactRequest, redactValue } from "../redact/request.ts";
import { isRecord, protocol as protocolOf } from "../wire/index.ts";
import type { RawCall } from "./action.ts";
import { StepCase, type StepProtocol } from "./case.ts";
import type { StepChoice } from "./select.ts";
import { conversation, offeredTools } from "./session.ts";

/** The step-defining shape of a request: offered tools and the role/type of each conversation item. */
function stepShape(name: StepProtocol, req: Record<string, unknown>): string {
  const items = conversation(name, req).map((i) =>
    isRecord(i) ? `${String(i.role ?? "")}/${String(i.type ?? "")}` : typeof i,
  );
  return JSON.stringify({ tools: offeredTools(name, req), items });
}

function redactCalls(calls: readonly RawCall[], detectors: readonly Detector[], what: string) {
  const out = calls.map((c) => ({
    name: c.name,
    args: redactValue(c.args, detectors) as Record<string, unknown>,
  }));
  out.forEach((c, i) => {
    const before = calls[i] as RawCall;
    const sameKeys = JSON.stringify(Object.keys(c.args)) === JSON.stringify(Object.keys(before.args));
    if (c.name !== before.name || !sameKeys)
      throw new RedactionError(
        `Cannot redact ${what}: redaction changed call ${i + 1}'s tool or argument names`,
      );
  });
  return out;
}

/** The case, and the parts of it the final leak scan must see (everything taken from traffic). */
export function buildCase(
  c: Pick<StepChoice, "expected" | "expectedFrom" | "alternative" | "reasons">,
  request: Record<string, unknown>,
  protocol: StepProtocol,
  id: string,
  provenance: StepCase["provenance"],
  o: { detectors: readonly Detector[]; keepFields: readonly string[] },
): { case: StepCase; scanned: unknown } {
  const redacted = redactRequest(request, { detectors: o.detectors, keepFields: o.keepFields });
  let same = false;
  try {
    // The case is the redacted body, so it must parse; the shapes compare without parsing the
    // original as well (a second zod pass over the whole request, 8% of a harvest's CPU).
    protocolOf(protocol).parseRequest(redacted); // throws WireError when it is no longer a request
    same = stepShape(protocol, redacted) === stepShape(protocol, request);
  } catch {
    same = false;
  }
  if (!same)
    throw new RedactionError(
      `Cannot redact case "${id}": the redacted request no longer parses as the same step`,
    );
  const tools = offeredTools(protocol, redacted);
  const expected = { calls: redactCalls(c.expected, o.detectors, `case "${id}" expected`) };
  const alternatives = c.alternative
    ? [
        {
          from: "control" as const,
          calls: redactCalls(c.alternative, o.detectors, `case "${id}" alternative`),
        },
      ]
    : [];
  const sc = StepCase.parse({
    version: 1,
    id,
    protocol,
    request: redacted,
    tools,
    expected,
    expectedFrom: c.expectedFrom,
    alternatives,
    match: "tools",
    reasons: c.reasons,
    provenance,
  });
  // The session hash is ours (a keyed digest), not traffic; the pair id is an id (entropy-exempt).
  return {
    case: sc,
    scanned: {
      request: sc.request,
      tools,
      expected,
      alternatives,
      id: provenance.pairId,
      experiment: provenance.experiment,
    },
  };
}
