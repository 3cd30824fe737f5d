// The LLM judge: a secondary reading, never a verdict. One prompt per step (`eval-steps run
// --rubric`: the answer against the expected action) or per pair (`eval-steps judge`: control and
// candidate, shown in a seeded order against position bias), sent to one judge route in any of the
// four wire protocols through the same request path as replay, answered as one JSON object with
// scores in [0, 1]. Requests and responses are clipped to 24 KiB, as the original online grader does.
import { readFileSync } from "node:fs";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { callModel, type Endpoint } from "../wire/call.ts";
import { type Answer, isRecord, protocol } from "../wire/index.ts";
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

/** The first JSON object in a judge's text whose `fields` are all numbers in [0, 1]. */
export function parseVerdict<K extends string>(
  text: string,
  fields: readonly K[],
): { scores: Record<K, number>; reason?: string } | { error: string } {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  let data: unknown;
  try {
    data = start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    data = undefined;
  }
  if (!isRecord(data)) return { error: "the judge did not answer with a JSON object" };
  const scores = {} as Record<K, number>;
  for (const f of fields) {
    const v = data[f];
    if (typeof v !== "number" || !(v >= 0 && v <= 1))
      return { error: `the judge's "${f}" is not a number from 0 to 1` };
    scores[f] = v;
  }
  const reason = typeof data.reason === "string" ? data.reason.slice(0, 500) : undefined;
  return reason === undefined ? { scores } : { scores, reason };
}

/** Sends a prompt to the judge and returns its visible text, or an error line. */
export async function askJudge(
  route: JudgeRoute,
  prompt: string,
): Promise<{ text?: string; error?: string }> {
  const request = protocol(route.protocol).judgeRequest(route.model, prompt);
  const reply = await callModel(
    route.protocol,
    buildRequest({ protocol: route.protocol, request }, route),
    route,
  );
  if (reply.error) return { error: `judge: ${reply.error}` };
  return { text: reply.answer?.text ?? "" };
}

const ANSWER_RULE = "Reply with one JSON object and nothing else";

/** The prompt for one replayed step: rubric, request, expected action, the model's answer. */
export function stepPrompt(rubric: string, c: StepCase, answer: Answer): string {
  return [
    "You grade one step of an AI coding agent: the next action it took in a session.",
    `## Rubric\n${rubric.trim()}`,
    `## The request the agent answered (JSON)\n${clip(JSON.stringify(c.request))}`,
    `## What production did at this step (${c.expectedFrom})\n${JSON.stringify(c.expected.calls)}`,
    `## The agent's answer\ncalls: ${clip(JSON.stringify(answer.calls.map(({ name, args }) => ({ name, args }))))}\ntext: ${clip(answer.text)}`,
    `${ANSWER_RULE}: {"score": <0 to 1, how well the answer meets the rubric>, "reason": "<one sentence>"}`,
  ].join("\n\n");
}

/** A secondary judge score for one step; errors are recorded, never thrown, and never change pass. */
export async function judgeStep(
  route: JudgeRoute,
  rubric: string,
  c: StepCase,
  answer: Answer,
): Promise<{ score?: number; reason?: string; error?: string }> {
  const reply = await askJudge(route, stepPrompt(rubric, c, answer));
  if (reply.error !== undefined) return { error: reply.error };
  const v = parseVerdict(reply.text ?? "", ["score"] as const);
  if ("error" in v) return { error: v.error };
  return { score: v.scores.score, ...(v.reason === undefined ? {} : { reason: v.reason }) };
}

/** The prompt for one pair: rubric, request, then answers A and B. */
export function pairPrompt(rubric: string, request: unknown, a: unknown, b: unknown): string {
  const show = (v: unknown) => clip(typeof v === "string" ? v : JSON.stringify(v));
  return [
    "You compare two answers of AI models to the same request of a coding agent.",
    `## Rubric\n${rubric.trim()}`,
    `## The request (JSON)\n${show(request)}`,
    `## Answer A\n${show(a)}`,
    `## Answer B\n${show(b)}`,
    `${ANSWER_RULE}: {"a": <0 to 1>, "b": <0 to 1>, "reason": "<one sentence>"} scoring each answer against the rubric`,
  ].join("\n\n");
}
