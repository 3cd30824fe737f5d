// The mock model's replies file (`proctor mock-model --replies FILE`, JSON or YAML): one versioned zod
// schema and loadMockScript() at the boundary. A file holds conversations, each for one model name
// or any, and optionally only for requests holding a text (`when.contains`: an A/B of skills answers
// the agent that sees the skill differently); a conversation is the replies one agent run gets in order (text, tool calls, the shell
// call each real CLI understands, an HTTP error, a hang). Which reply a request gets is read from the
// request itself (the tool results it carries), not from a counter, so parallel trials, repeats and
// retries of the same conversation all get the same answers.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError, fileProblem, messageOf } from "../../core/errors.ts";
import { type Script, type Step, shellCall, text, toolCalls } from "./steps.ts";

const count = z.number().int().min(0);
const Usage = z.object({ input: count, output: count }).strict().describe("tokens the reply reports");
const ToolCall = z
  .object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() })
  .strict();

const Reply = z.union(
  [
    z.object({ text: z.string(), usage: Usage.optional() }).strict(),
    z
      .object({ tools: z.array(ToolCall).min(1), text: z.string().optional(), usage: Usage.optional() })
      .strict(),
    z
      .object({
        shell: z.string().min(1).describe("a command, sent as the asking CLI's own shell tool call"),
        text: z.string().optional(),
        usage: Usage.optional(),
      })
      .strict(),
    z
      .object({
        error: z.number().int().min(400).max(599).describe("an HTTP status"),
        body: z.unknown().optional(),
      })
      .strict(),
    z.object({ hang: z.literal(true).describe("never answer (a client timeout test)") }).strict(),
  ],
  { error: "expected one reply: {text}, {tools}, {shell}, {error} or {hang}" },
);
export type Reply = z.infer<typeof Reply>;

const Conversation = z
  .object({
    model: z.string().min(1).optional().describe("answer requests for this model only (absent: any model)"),
    when: z
      .object({
        contains: z
          .string()
          .min(1)
          .describe(
            "answer only requests whose body holds this text (e.g. a skill's name: does the agent see it?)",
          ),
      })
      .strict()
      .optional(),
    replies: z.array(Reply).min(1),
  })
  .strict();

/** A replies file. */
export const MockScriptFile = z
  .object({
    version: z.literal(1),
    usage: Usage.optional().describe("default usage of every reply (default 100 in, 10 out)"),
    conversations: z.array(Conversation).min(1).describe("the first whose model matches answers"),
  })
  .strict();
export type MockScriptFile = z.infer<typeof MockScriptFile>;

/** The JSON Schema committed as schemas/mock-replies.schema.json. */
export function mockScriptJsonSchema(): unknown {
  return z.toJSONSchema(MockScriptFile);
}

function where(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out === "" ? "top level" : out;
}

/** Reads and checks a replies file (`.json`, else YAML); one ConfigError line naming file, field, expectation. */
export function loadMockScript(path: string): MockScriptFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read replies "${path}": ${fileProblem(error)}`, { cause: error });
  }
  let data: unknown;
  try {
    data = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`Cannot load replies "${path}": ${messageOf(error).split("\n")[0]}`, {
      cause: error,
    });
  }
  const r = MockScriptFile.safeParse(data);
  if (!r.success) {
    // An unknown key first: a misspelt key otherwise reads as the right one missing.
    const issue = r.error.issues.find((i) => i.code === "unrecognized_keys") ?? r.error.issues[0]!;
    throw new ConfigError(`Cannot load replies "${path}": ${where(issue.path)}: ${issue.message}`);
  }
  return r.data;
}

const callsOf = (reply: Reply): number => ("tools" in reply ? reply.tools.length : "shell" in reply ? 1 : 0);

/** The reply a request gets: each tool-calling reply is passed once all its calls have their results. */
export function replyIndex(replies: readonly Reply[], toolResults: number): number {
  let i = 0;
  let left = toolResults;
  while (i < replies.length && callsOf(replies[i]!) > 0 && left >= callsOf(replies[i]!)) {
    left -= callsOf(replies[i]!);
    i++;
  }
  return i;
}

/** The file as a Script: a request's model (and `when`, its content) picks the conversation, its tool results the reply. */
export function scriptOf(file: MockScriptFile): Script {
  return (req, ctx): Step => {
    // Serialised once, and only when a conversation asks what the request holds.
    let body: string | undefined;
    const holds = (text: string) => {
      body ??= JSON.stringify(req.body) ?? "";
      return body.includes(text);
    };
    const conv = file.conversations.find(
      (c) =>
        (c.model === undefined || c.model === req.model) && (c.when === undefined || holds(c.when.contains)),
    );
    if (conv === undefined) throw new Error(`no conversation for model "${req.model ?? ""}"`);
    const n = replyIndex(conv.replies, ctx.toolResults.length);
    const reply = conv.replies[n];
    if (reply === undefined)
      throw new Error(
        `the conversation${conv.model ? ` of model "${conv.model}"` : ""} has no reply ${n + 1}`,
      );
    const extra = { ...("text" in reply && reply.text !== undefined ? { text: reply.text } : {}) };
    const usage = "usage" in reply && reply.usage !== undefined ? { usage: reply.usage } : {};
    if ("hang" in reply) return { kind: "hang" };
    if ("error" in reply)
      return {
        kind: "error",
        status: reply.error,
        ...(reply.body !== undefined ? { body: reply.body } : {}),
      };
    if ("shell" in reply) return toolCalls([shellCall(ctx.protocol, reply.shell)], { ...extra, ...usage });
    if ("tools" in reply)
      return toolCalls(
        reply.tools.map((t) => ({ name: t.name, args: t.args ?? {} })),
        { ...extra, ...usage },
      );
    return text(reply.text, reply.usage);
  };
}
