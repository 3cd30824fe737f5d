// The LLM judge: a secondary reading, never a verdict. One prompt per step (`eval-steps run
// --rubric`: the answer against the expected action) or per pair (`eval-steps judge`: control and
// candidate, shown in a seeded order against position bias), sent to one judge route in any of the
// four wire protocols through the same request path as replay. Framed as the suite's judge is
// (lib/judge/): the request, the production action and every answer are data between this call's
// fence, the system text says so and names the one JSON shape to answer in, and the reply must be
// exactly that object (no prose, no second object), so a verdict an answer carries, or one the judge
// merely quotes, is never recorded. Each fenced body is clipped to 24 KiB, as the original online
// grader clips requests and responses.
import { readFileSync } from "node:fs";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { dataRule, GRADER_ROLE, newNonce, type Part, REPLY_RULE, renderPrompt } from "../judge/fence.ts";
import { parseJsonObject } from "../judge/reply.ts";
import { callModel, type Endpoint } from "../wire/call.ts";
import { type Answer, protocol } from "../wire/index.ts";
import type { StepCase, StepProtocol } from "./case.ts";
import { buildRequest } from "./replay.ts";

/** A judge model route: the protocol it speaks and the endpoint (key already read from its variable). */
export interface JudgeRoute extends Endpoint {
  protocol: StepProtocol;
}

/** A rubric: its text and `sha256:<hex>` of it (recorded, so readings from other rubrics are told apart). */
export interface Rubric {
  text: string;
  digest: string;
}

/** What one judgement asks: the judge's task, the prompt's parts and the reply's JSON shape. */
export interface JudgeAsk {
  task: string;
  parts: Part[];
  shape: string;
}

const CLIP = 24 * 1024;

/** Text clipped to 24 KiB with the original's marker. */
export function clip(text: string): string {
  return text.length <= CLIP ? text : `${text.slice(0, CLIP)}\n[... truncated ...]`;
}

/** Reads a rubric file; ConfigError when it is unreadable or empty. */
export function readRubric(path: string): Rubric {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read rubric "${path}": ${(error as Error).message}`, { cause: error });
  }
  if (text.trim() === "") throw new ConfigError(`Cannot load rubric "${path}": the file is empty`);
  return { text, digest: `sha256:${sha256Hex(text)}` };
}

/**
 * The judge's reply read strictly: exactly one JSON object holding each of `fields` (a number in
 * [0, 1]) and a non-empty `reason` (kept to 500 characters), and nothing else.
 */
export function parseVerdict<K extends string>(
  text: string,
  fields: readonly K[],
): { scores: Record<K, number>; reason: string } | { error: string } {
  const parsed = parseJsonObject(text);
  if ("error" in parsed) return { error: `the judge did not answer with one JSON object: ${parsed.error}` };
  const data = parsed.data;
  for (const k of Object.keys(data))
    if (k !== "reason" && !(fields as readonly string[]).includes(k))
      return { error: `the judge's reply has an unknown field ${JSON.stringify(k)}` };
  const scores = {} as Record<K, number>;
  for (const f of fields) {
    const v = data[f];
    if (typeof v !== "number" || !(v >= 0 && v <= 1))
      return { error: `the judge's "${f}" is not a number from 0 to 1` };
    scores[f] = v;
  }
  if (typeof data.reason !== "string" || data.reason.trim() === "")
    return { error: `the judge's "reason" is not a non-empty string` };
  return { scores, reason: data.reason.slice(0, 500) };
}

/** The system text: the judge's task, the data rule naming this call's fence, the reply's shape. */
export function systemText(ask: Pick<JudgeAsk, "task" | "shape">, nonce: string): string {
  return [`${GRADER_ROLE} ${ask.task}`, "", dataRule(nonce, "the rubric"), "", REPLY_RULE, ask.shape].join(
    "\n",
  );
}

/** Sends one judgement (a fresh fence per call) and returns the judge's visible text, or an error line. */
export async function askJudge(route: JudgeRoute, ask: JudgeAsk): Promise<{ text?: string; error?: string }> {
  const nonce = newNonce();
  const request = protocol(route.protocol).judgeRequest(route.model, renderPrompt(ask.parts, nonce), {
    system: systemText(ask, nonce),
    temperature: 0,
    maxTokens: 1024,
  });
  const reply = await callModel(
    route.protocol,
    buildRequest({ protocol: route.protocol, request }, route),
    route,
  );
  if (reply.error) return { error: `judge: ${reply.error}` };
  return { text: reply.answer?.text ?? "" };
}

const show = (v: unknown) => clip(typeof v === "string" ? v : JSON.stringify(v));

/** One replayed step's judgement: rubric (trusted), then the request, production's action and the answer (fenced). */
export function stepAsk(rubric: string, c: StepCase, answer: Answer): JudgeAsk {
  return {
    task: "You grade one step of an AI coding agent: the next action it took in a session, against the rubric.",
    parts: [
      { title: "Rubric", body: rubric, untrusted: false },
      { title: "The request the agent answered (JSON)", body: show(c.request), untrusted: true },
      {
        title: `What production did at this step (${c.expectedFrom})`,
        body: JSON.stringify(c.expected.calls),
        untrusted: true,
      },
      {
        title: "The agent's answer",
        body: `calls: ${show(answer.calls.map(({ name, args }) => ({ name, args })))}\ntext: ${clip(answer.text)}`,
        untrusted: true,
      },
    ],
    shape: '{"score": <0..1, how well the answer meets the rubric>, "reason": "<one sentence>"}',
  };
}

/** A secondary judge score for one step; errors are recorded, never thrown, and never change pass. */
export async function judgeStep(
  route: JudgeRoute,
  rubric: string,
  c: StepCase,
  answer: Answer,
): Promise<{ score?: number; reason?: string; error?: string }> {
  const reply = await askJudge(route, stepAsk(rubric, c, answer));
  if (reply.error !== undefined) return { error: reply.error };
  const v = parseVerdict(reply.text ?? "", ["score"] as const);
  if ("error" in v) return { error: v.error };
  return { score: v.scores.score, reason: v.reason };
}

/** One pair's judgement: rubric (trusted), then the request and answers A and B (fenced). */
export function pairAsk(rubric: string, request: unknown, a: unknown, b: unknown): JudgeAsk {
  return {
    task: "You compare two answers of AI models to the same request of a coding agent, scoring each against the rubric.",
    parts: [
      { title: "Rubric", body: rubric, untrusted: false },
      { title: "The request (JSON)", body: show(request), untrusted: true },
      { title: "Answer A", body: show(a), untrusted: true },
      { title: "Answer B", body: show(b), untrusted: true },
    ],
    shape: '{"a": <0..1>, "b": <0..1>, "reason": "<one sentence>"}',
  };
}
