// Reading a judge's reply, strictly, for every judge of Proctor: exactly one JSON object, whitespace
// around it and nothing else (no code fence, no prose before or after, no second object), so a verdict
// the judge merely quotes (the evaluated system's own, say) is never taken for its answer. Which
// fields the object must hold is each judge's; a reply that is not one object is an error line.

/** A JSON object, or why the reply is not exactly one. */
export function parseJsonObject(reply: string): { data: Record<string, unknown> } | { error: string } {
  const text = reply.trim();
  if (text === "") return { error: "the reply is empty" };
  if (!text.startsWith("{"))
    return { error: `expected one JSON object, got ${JSON.stringify(text.slice(0, 20))}` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { error: trailing(text) ? "trailing data after the JSON object" : "the reply is not valid JSON" };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { error: "expected one JSON object" };
  return { data: data as Record<string, unknown> };
}

/**
 * Whether an object closing at one of the first 64 `}` is followed by more: a verdict closes within its
 * first few braces, and a reply of braces alone must not cost a parse per brace.
 */
function trailing(text: string): boolean {
  let tries = 0;
  for (let at = text.indexOf("}"); at >= 0 && tries++ < 64; at = text.indexOf("}", at + 1)) {
    try {
      JSON.parse(text.slice(0, at + 1));
      return true;
    } catch {
      // not the end of the object yet
    }
  }
  return false;
}
