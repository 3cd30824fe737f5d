// THE step case format: one JSON file per harvested step (<id>.json, mode 0600). `eval-steps harvest`
// writes it, `eval-steps run` replays it, people edit `match` by hand. The request is the real prefix,
// already redacted, in the harness's own wire protocol; the session is only ever a keyed hash (see
// provenance.session), so many cases of one session can be clustered without naming it.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { WIRE_NAMES, type WireName } from "../wire/index.ts";

/** The wire protocols a pair (and so a step) can be in: the registry's (lib/wire). */
export const STEP_PROTOCOLS = WIRE_NAMES;
export type StepProtocol = WireName;

/** Why a step was selected (the spec's `--select` table). */
export const SELECT_REASONS = ["diverged", "invalid-call", "premature-stop", "judge-loss", "sample"] as const;
export type SelectReason = (typeof SELECT_REASONS)[number];

/** One tool call as the matcher compares it: tool name and its (redacted) arguments. */
export const StepCall = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});
export type StepCall = z.infer<typeof StepCall>;

/** One action at a step: the calls made, in order; no calls means the model ended its turn. */
export const StepAction = z.strictObject({
  calls: z.array(StepCall).describe("the tool calls of the assistant turn; empty = the turn ended"),
});
export type StepAction = z.infer<typeof StepAction>;

/** Where the expected action came from. */
export const EXPECTED_FROM = ["production", "control"] as const;

/** An accepted alternative, with where it came from. */
export const StepAlternative = StepAction.extend({ from: z.enum(EXPECTED_FROM) });
export type StepAlternative = z.infer<typeof StepAlternative>;

/** A tool the request offers and the argument names its schema requires. */
export const StepTool = z.strictObject({ name: z.string().min(1), required: z.array(z.string()) });

/** Why and from where the case was harvested. Never the raw session id. */
export const StepProvenance = z.strictObject({
  pairId: z.string().min(1).describe("the pair store row id"),
  experiment: z.string().min(1),
  session: z
    .string()
    .regex(/^hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}$/)
    .describe(
      "hmac-sha256:<session key id>:<HMAC-SHA256(session key, session id)>; the key id says which harvests cluster",
    ),
  depth: z.number().int().min(0).describe("the step's position in its session, 0 = first request"),
  harvestedAt: z.string().describe("RFC 3339 time of the harvest"),
  redaction: z.string().min(1).describe("the redaction rules version the request went through"),
});
export type StepProvenance = z.infer<typeof StepProvenance>;

/** One step case. */
export const StepCase = z.strictObject({
  version: z.literal(1),
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
    .describe("the file name without .json"),
  protocol: z.enum(STEP_PROTOCOLS),
  request: z.record(z.string(), z.unknown()).describe("the real prefix, redacted, as the harness sent it"),
  tools: z.array(StepTool).describe("the offered tools and their required arguments"),
  expected: StepAction,
  expectedFrom: z.enum(EXPECTED_FROM),
  alternatives: z
    .array(StepAlternative)
    .describe("also accepted (the control replay when it differed but was valid)"),
  match: z
    .enum(["tools", "calls"])
    .describe("tools: same multiset of tool names; calls: same names and canonical arguments"),
  reasons: z.array(z.enum(SELECT_REASONS)).min(1),
  provenance: StepProvenance,
});
export type StepCase = z.infer<typeof StepCase>;

/** The JSON Schema committed as schemas/step-case.schema.json. */
export function stepCaseJsonSchema(): unknown {
  return z.toJSONSchema(StepCase);
}

/** Validates a parsed case; `where` names the file in the error. */
export function parseStepCase(data: unknown, where: string): StepCase {
  const result = StepCase.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  throw new ConfigError(`Cannot load step case "${where}": ${issue?.message ?? "invalid"}${at}`);
}

/** Reads and validates one case file. */
export function loadStepCase(path: string): StepCase {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read step case "${path}": ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Cannot parse step case "${path}": ${(error as Error).message}`, { cause: error });
  }
  return parseStepCase(data, path);
}
