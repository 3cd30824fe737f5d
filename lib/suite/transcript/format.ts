// A trial's transcript (`<repeat>.transcript.json` beside the trial's log, schemas/transcript.schema.json):
// how it ended and why, what the model bridge counted, every exchange the bridge forwarded (what each
// request added to the conversation, the reply's text and tool calls, tokens and cost), the CLI's own
// event stream, each phase's exit and output, and the diff of /work the agent left. Every string is
// redacted before it is written (write.ts) and every part is capped (the caps below), so a transcript
// stays readable and small whatever an agent printed.
import { z } from "zod";
import { ConfigError } from "../../core/errors.ts";
import { firstIssue } from "../../core/jsonl.ts";
import { WIRE_NAMES } from "../../wire/index.ts";
import { DATA, readInput } from "../input.ts";
import { Metered, Mismatch } from "../meter/format.ts";
import { INFRA_KINDS } from "../scorecard/schema.ts";

/** One text field (a message, a tool result, a system prompt) keeps at most this many characters. */
export const TEXT_CAP = 32 * 1024;
/** A tool call's arguments, as JSON, at most this many characters (else shown cut, as text). */
export const ARGS_CAP = 16 * 1024;
/** A phase's stdout and stderr keep their last this many characters. */
export const OUTPUT_CAP = 64 * 1024;
/** The exchanges' content all together: past it, later exchanges keep their counts only. */
export const EXCHANGES_CAP = 8 * 1024 * 1024;
/** CLI events kept (each at most ARGS_CAP characters as JSON). */
export const EVENTS_CAP = 2000;
/** Files the diff lists, and characters of each file's patch and of all patches. */
export const DIFF_FILES_CAP = 500;
export const PATCH_CAP = 64 * 1024;
export const PATCHES_CAP = 1024 * 1024;

const count = z.number().int().min(0);

const Call = z.object({
  id: z.string().optional(),
  name: z.string(),
  args: z
    .record(z.string(), z.unknown())
    .describe('the arguments as the model sent them (cut: `{"cut": text}`)'),
  malformed: z.boolean().optional().describe("true: the arguments were not a JSON object"),
});

const Result = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  text: z.string(),
  isError: z.boolean().optional(),
});

/** One message of the conversation: who said it, its text, tool calls and tool results. */
export const SaidEntry = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  text: z.string().optional(),
  calls: z.array(Call).optional(),
  results: z.array(Result).optional(),
});
export type SaidEntry = z.infer<typeof SaidEntry>;

const Tokens = z.object({
  input: count,
  output: count,
  cacheRead: count,
  cacheWrite: count,
  reasoning: count,
});

/** One request the bridge forwarded and its reply. */
export const ModelExchange = z.looseObject({
  seq: count.describe("1-based, in the order the exchanges ended"),
  method: z.string(),
  path: z.string().describe("the request's path on the model endpoint, credential parameters left out"),
  ms: z.number().min(0),
  status: z.number().int().optional().describe("the reply's HTTP status (absent: no reply came)"),
  error: z.string().optional().describe("why the exchange did not complete, or the error reply's text"),
  protocol: z
    .enum(WIRE_NAMES)
    .optional()
    .describe("absent: not a model protocol's path (Claude Code's HEAD /)"),
  model: z.string().optional(),
  sent: z
    .array(SaidEntry)
    .describe("what this request added to the conversation; what came before is in earlier exchanges"),
  reply: z
    .looseObject({
      model: z.string().optional(),
      text: z.string(),
      calls: z.array(Call),
      stop: z.string().optional(),
    })
    .optional(),
  tokens: Tokens.optional(),
  costUSD: z.number().min(0).optional(),
  unreadable: z.string().optional().describe("why a successful reply could not be read"),
  omitted: z.literal(true).optional().describe("content left out: the transcript's size cap was reached"),
});
export type ModelExchange = z.infer<typeof ModelExchange>;

/** One phase of the trial: its exit and the end of its output. */
export const PhaseRecord = z.looseObject({
  phase: z.string(),
  exit: z.number().int().nullable(),
  timedOut: z.boolean(),
  ms: z.number().min(0),
  infra: z.string().optional(),
  stdout: z.string().describe("its last OUTPUT_CAP characters"),
  stderr: z.string().describe("its last OUTPUT_CAP characters"),
});
export type PhaseRecord = z.infer<typeof PhaseRecord>;

/** One path the agent changed in /work. */
export const FileChange = z.looseObject({
  path: z.string(),
  change: z.enum(["added", "deleted", "modified"]),
  patch: z.string().optional().describe("a unified diff of the text"),
  note: z.string().optional().describe("why there is no patch (binary, large, a link) or what else changed"),
});
export type FileChange = z.infer<typeof FileChange>;

/** A trial's transcript, version 1. */
export const Transcript = z.looseObject({
  version: z.literal(1),
  task: z.string(),
  variant: z.string(),
  repeat: count,
  harness: z.string().optional(),
  outcome: z.looseObject({
    pass: z.boolean(),
    error: z.string().optional().describe("the trial's first failure"),
    infra: z.enum(INFRA_KINDS).optional(),
    failure: z.string().optional().describe("the failed tool call or check nearest the end, in one line"),
  }),
  meter: Metered.optional(),
  mismatch: z.array(Mismatch).optional(),
  exchanges: z.array(ModelExchange),
  cli: z
    .looseObject({
      format: z.enum(["jsonl", "json"]),
      events: z.array(z.unknown()),
      dropped: count.optional().describe("events past EVENTS_CAP"),
    })
    .optional()
    .describe("the CLI's own event stream (Claude's stream-json, Codex's JSONL, Gemini's JSON)"),
  phases: z.array(PhaseRecord),
  diff: z
    .looseObject({
      files: z.array(FileChange),
      more: count.optional().describe("changed paths past DIFF_FILES_CAP, not listed"),
    })
    .optional()
    .describe("what the agent changed in /work (absent: the runner could not read /work)"),
});
export type Transcript = z.infer<typeof Transcript>;

/** The JSON Schema committed as schemas/transcript.schema.json. */
export function transcriptJsonSchema(): unknown {
  return z.toJSONSchema(Transcript);
}

/** Reads a transcript file; one line naming the file and the field when it is not one. */
export function loadTranscript(path: string): Transcript {
  let data: unknown;
  try {
    data = JSON.parse(readInput(path, "transcript", DATA));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Cannot load transcript "${path}": ${(error as Error).message}`, { cause: error });
  }
  const r = Transcript.safeParse(data);
  if (!r.success) throw new ConfigError(`Cannot load transcript "${path}": ${firstIssue(r.error)}`);
  return data as Transcript;
}

/** `s` cut to its first `n` characters, saying how many were left out. */
export function capText(s: string, n = TEXT_CAP): string {
  return s.length <= n ? s : `${s.slice(0, n)}\n… [${s.length - n} more characters not kept]`;
}

/** `s` cut to its last `n` characters, saying how many were left out. */
export function capTail(s: string, n = OUTPUT_CAP): string {
  return s.length <= n ? s : `[${s.length - n} earlier characters not kept] …\n${s.slice(-n)}`;
}

/** A call's arguments within ARGS_CAP: as they came, or `{cut: <their JSON cut>}`. */
export function capArgs(args: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(args);
  return json.length <= ARGS_CAP ? args : { cut: capText(json, ARGS_CAP) };
}

/** Whether a tool result says its call failed: marked so (Anthropic, Gemini), or a non-zero exit in its text (Codex's shell). */
export function resultFailed(r: { isError?: boolean; text: string }): boolean {
  return r.isError === true || /\b(?:exited with code|exit code:?)\s*[1-9]\d*/i.test(r.text.slice(0, 500));
}
