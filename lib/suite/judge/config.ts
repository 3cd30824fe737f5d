// The judge's two file formats: a suite's `judge:` key (JudgeFile: which pinned model, reached how,
// the key's variable, the verdict cache) and a rubric file (Rubric: id@version, instructions,
// weighted criteria, pass threshold), both as the original halo eval wrote them, plus loadRubric().
// The wire names are the original's two (`anthropic-messages`, `openai-responses`) and ours for
// Gemini and Bedrock. Calling the judge is judge.ts's, reading its reply verdict.ts's.
import { isIP } from "node:net";
import { z } from "zod";
import { sha256FileSync } from "../../core/hash.ts";
import type { WireName } from "../../wire/index.ts";
import { failure, parseWith, readYaml } from "../yaml.ts";

/** The `wire:` values a judge may speak and the registry protocol each one is. */
export const JUDGE_WIRES = {
  "anthropic-messages": "anthropic",
  "openai-responses": "responses",
  "gemini-generate-content": "gemini",
  "bedrock-invoke": "bedrock",
} as const satisfies Record<string, WireName>;
export type JudgeWire = keyof typeof JUDGE_WIRES;

/** https anywhere, plain http only to a loopback host: a key never crosses a network in clear. */
export function secureUrl(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  if (u.protocol === "https:") return u.host !== "";
  if (u.protocol !== "http:") return false;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || (isIP(host) === 4 && host.startsWith("127.")) || host === "::1";
}

/** A suite's `judge:` key: a pinned model through a gateway (the original's keys, Bedrock's region added). */
export const JudgeFile = z
  .object({
    url: z
      .string()
      .min(1)
      .refine(secureUrl, "expected an absolute https URL (plain http only to 127.0.0.1, ::1 or localhost)")
      .describe("the gateway's base URL; the protocol's path (/v1/messages, /v1/responses, ...) is appended"),
    wire: z.enum(Object.keys(JUDGE_WIRES) as [JudgeWire, ...JudgeWire[]]),
    model: z
      .string()
      .min(1)
      .refine((m) => !m.includes("latest"), 'expected a pinned model id (no "latest" alias)'),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected the NAME of an environment variable (letters, digits, _)")
      .optional()
      .describe("the variable holding the gateway key; its value goes only into the auth header"),
    cache: z
      .string()
      .min(1)
      .optional()
      .describe("a directory, relative to the suite's, for verdicts already given (reruns do not pay twice)"),
    region: z
      .string()
      .min(1)
      .optional()
      .describe("bedrock-invoke only: the AWS region (default $AWS_REGION)"),
  })
  .strict();
export type JudgeFile = z.infer<typeof JudgeFile>;

/** The judge keys whose plain scalars stay strings (for lib/suite/yaml.ts readYaml under `judge`). */
export const JUDGE_STRING_KEYS = ["url", "wire", "model", "api_key_env", "cache", "region"] as const;

/** One scored dimension of a rubric; weight 0 or absent counts 1, as in the original. */
export const Criterion = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    weight: z.number().min(0).optional(),
  })
  .strict();

/** A rubric file (e.g. evals/rubrics/quality.yaml); bump `version` whenever its meaning changes. */
export const RubricFile = z
  .object({
    id: z.string().min(1),
    version: z.string().min(1).describe("the rubric's own version; scorecards record id@version"),
    instructions: z.string().optional(),
    criteria: z.array(Criterion).min(1),
    pass_threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("the weighted score (0..1) at or above which the grader passes; 0 or absent: 0.7"),
  })
  .strict();
export type RubricFile = z.infer<typeof RubricFile>;

/** The JSON Schema committed as schemas/judge-rubric.schema.json. */
export function rubricJsonSchema(): unknown {
  return z.toJSONSchema(RubricFile);
}

/** A loaded rubric: defaults applied, `ref` = id@version, `digest` = sha256 of the file's bytes. */
export interface Rubric {
  id: string;
  version: string;
  instructions: string;
  criteria: Array<{ name: string; description: string; weight: number }>;
  passThreshold: number;
  ref: string;
  digest: string;
  path: string;
}

const DEFAULT_PASS = 0.7;
const RUBRIC_STRING_KEYS: ReadonlySet<string> = new Set([
  "id",
  "version",
  "instructions",
  "criteria.name",
  "criteria.description",
]);

/**
 * Loads and checks the rubric at `path`. Throws ConfigError, one line
 * `<file>:<line>:<col>: rubric <id>: <field>: <what was expected>`: unreadable or invalid YAML, an
 * unknown key, no id/version/criteria, a threshold outside 0..1, a negative weight, or a criterion
 * name that is empty or repeated.
 */
export function loadRubric(path: string): Rubric {
  const src = readYaml(path, RUBRIC_STRING_KEYS, "rubric");
  const raw = src.data as Record<string, unknown> | undefined;
  const owner = typeof raw?.id === "string" && raw.id !== "" ? `rubric ${raw.id}` : "rubric";
  const file = parseWith(src, RubricFile, owner);
  const seen = new Set<string>();
  file.criteria.forEach((c, i) => {
    if (seen.has(c.name))
      throw failure(
        src,
        owner,
        ["criteria", i, "name"],
        `criteria[${i}].name: duplicate criterion "${c.name}"`,
      );
    seen.add(c.name);
  });
  return {
    id: file.id,
    version: file.version,
    instructions: (file.instructions ?? "").trim(),
    criteria: file.criteria.map((c) => ({
      name: c.name,
      description: (c.description ?? "").trim(),
      weight: c.weight || 1,
    })),
    passThreshold: file.pass_threshold || DEFAULT_PASS,
    ref: `${file.id}@${file.version}`,
    digest: `sha256:${sha256FileSync(src.path)}`,
    path: src.path,
  };
}
