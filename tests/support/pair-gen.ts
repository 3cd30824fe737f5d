// A seeded generator of shadow pair stores for every protocol, with the known answer per pair:
// sessions of steps (each request = the conversation so far, the previous step's assistant turn and
// its tool results), auxiliary requests, byte-identical retries, truncated arms, and per-step moves
// of the control and the candidate. Used by the harvest tests, the step replay tests and the bench.
import { closeSync, openSync, writeSync } from "node:fs";
import type { SelectReason, StepProtocol } from "../../lib/steps/case.ts";
import type { Pair } from "../../lib/steps/pairs/index.ts";
import { type PairKey, seal } from "../../lib/steps/pairs/index.ts";
import { anthropic, gemini, responses } from "../../lib/wire/index.ts";
import { prng } from "./cassette-gen.ts";

/** One call as the generator plans it; `malformed` makes its arguments unparsable on the wire. */
export interface GenCall {
  name: string;
  args: Record<string, unknown>;
  malformed?: boolean;
}

/** The tools every generated request offers, with required arguments. */
export const GEN_TOOLS = [
  { name: "Read", required: ["path"] },
  { name: "Write", required: ["path", "content"] },
  { name: "Bash", required: ["command"] },
  { name: "Grep", required: ["pattern"] },
] as const;

/** How the control / candidate acted relative to production. */
export type ControlMove = "same" | "args" | "tool" | "invalid";
export type CandidateMove = "same" | "args" | "diverge" | "unoffered" | "missing-arg" | "malformed" | "stop";

/** One planned step of a session. */
export interface GenStep {
  production: GenCall[];
  control: ControlMove;
  candidate: CandidateMove;
  aux?: boolean;
  retry?: boolean;
  truncated?: "control" | "candidate";
}

/** The known answer for one pair row. */
export interface PairTruth {
  id: string;
  session: string;
  /** Not a step (auxiliary, retry) or an arm truncated: never harvested. */
  harvestable: boolean;
  depth?: number;
  expectedFrom?: "production" | "control";
  /** The step's expected action is invalid: skipped. */
  skipped?: boolean;
  expectedTools?: string[];
  alternative?: boolean;
  /** The rule-based reasons (every reason but sample and judge-loss). */
  reasons: SelectReason[];
}

function toolSchema(t: (typeof GEN_TOOLS)[number]) {
  return {
    type: "object",
    properties: Object.fromEntries(t.required.map((r) => [r, { type: "string" }])),
    required: [...t.required],
  };
}

function offered(protocol: StepProtocol): Record<string, unknown> {
  if (protocol === "responses")
    return { tools: GEN_TOOLS.map((t) => ({ type: "function", name: t.name, parameters: toolSchema(t) })) };
  if (protocol === "gemini")
    return {
      tools: [
        {
          functionDeclarations: GEN_TOOLS.map((t) => ({ name: t.name, parametersJsonSchema: toolSchema(t) })),
        },
      ],
    };
  return {
    tools: GEN_TOOLS.map((t) => ({
      name: t.name,
      description: `${t.name} a thing`,
      input_schema: toolSchema(t),
    })),
  };
}

function callId(session: string, depth: number, i: number): string {
  return `toolu_${session.replace(/[^A-Za-z0-9]/g, "")}x${depth}x${i}`;
}

/** The assistant turn and the tool results that follow it, as conversation items. */
function turnItems(
  protocol: StepProtocol,
  calls: GenCall[],
  session: string,
  depth: number,
  filler: string,
): unknown[] {
  const ids = calls.map((_, i) => callId(session, depth, i));
  if (protocol === "responses")
    return [
      ...calls.map((c, i) => ({
        type: "function_call",
        call_id: ids[i],
        name: c.name,
        arguments: JSON.stringify(c.args),
      })),
      ...calls.map((_, i) => ({
        type: "function_call_output",
        call_id: ids[i],
        output: `ok ${depth}.${i} ${filler}`,
      })),
    ];
  if (protocol === "gemini")
    return [
      { role: "model", parts: calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) },
      {
        role: "user",
        parts: calls.map((c, i) => ({
          functionResponse: { name: c.name, response: { output: `ok ${depth}.${i} ${filler}` } },
        })),
      },
    ];
  return [
    {
      role: "assistant",
      content: [
        { type: "text", text: `step ${depth}` },
        ...calls.map((c, i) => ({ type: "tool_use", id: ids[i], name: c.name, input: c.args })),
      ],
    },
    {
      role: "user",
      content: calls.map((_, i) => ({
        type: "tool_result",
        tool_use_id: ids[i],
        content: `ok ${depth}.${i} ${filler}`,
      })),
    },
  ];
}

function firstUser(protocol: StepProtocol, text: string): unknown {
  if (protocol === "responses")
    return { type: "message", role: "user", content: [{ type: "input_text", text }] };
  if (protocol === "gemini") return { role: "user", parts: [{ text }] };
  return { role: "user", content: text };
}

function request(protocol: StepProtocol, items: unknown[], withTools: boolean): Record<string, unknown> {
  const tools = withTools ? offered(protocol) : {};
  if (protocol === "responses")
    return {
      model: "gpt-5",
      instructions: "You are a coding agent.",
      input: items,
      ...tools,
      prompt_cache_key: "pck-session",
      stream: true,
    };
  if (protocol === "gemini")
    return { contents: items, ...tools, systemInstruction: { parts: [{ text: "You are a coding agent." }] } };
  const base = { system: "You are a coding agent.", messages: items, ...tools, max_tokens: 4096 };
  if (protocol === "bedrock") return { anthropic_version: "bedrock-2023-05-31", ...base };
  return { model: "claude-opus", ...base, metadata: { user_id: "user_abc_account_123" }, stream: true };
}

/** A response body carrying `calls` (none = a final text), truncated or with malformed calls if asked. */
export function responseBody(
  protocol: StepProtocol,
  calls: GenCall[],
  truncated = false,
): Record<string, unknown> {
  const usage = { input: 100, output: 20 };
  const plain = calls.map((c) => ({ name: c.name, args: c.args }));
  if (protocol === "responses") {
    const r = (calls.length
      ? responses.toolCallResponse(plain, usage)
      : responses.textResponse("done", usage)) as unknown as Record<string, unknown>;
    const out = r.output as Array<Record<string, unknown>>;
    calls.forEach((c, i) => {
      if (c.malformed) (out[i] as Record<string, unknown>).arguments = "{not json";
    });
    return truncated
      ? { ...r, status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
      : r;
  }
  if (protocol === "gemini") {
    const r = (calls.length
      ? gemini.toolCallResponse(plain, usage)
      : gemini.textResponse("done", usage)) as unknown as Record<string, unknown>;
    const cand = (r.candidates as Array<Record<string, unknown>>)[0] as Record<string, unknown>;
    const parts = (cand.content as { parts: Array<Record<string, unknown>> }).parts;
    calls.forEach((c, i) => {
      if (c.malformed)
        ((parts[i] as Record<string, unknown>).functionCall as Record<string, unknown>).args = "oops";
    });
    if (truncated) cand.finishReason = "MAX_TOKENS";
    return r;
  }
  const r = (calls.length
    ? anthropic.toolCallResponse(plain, usage)
    : anthropic.textResponse("done", usage)) as unknown as Record<string, unknown>;
  const content = r.content as Array<Record<string, unknown>>;
  calls.forEach((c, i) => {
    if (c.malformed) (content[i] as Record<string, unknown>).input = "oops";
  });
  return truncated ? { ...r, stop_reason: "max_tokens" } : r;
}

const OTHER: Record<string, GenCall> = {
  Read: { name: "Grep", args: { pattern: "TODO" } },
  Write: { name: "Bash", args: { command: "ls" } },
  Bash: { name: "Read", args: { path: "README.md" } },
  Grep: { name: "Write", args: { path: "x.txt", content: "x" } },
};

function otherArgs(calls: GenCall[]): GenCall[] {
  return calls.map((c) => ({
    name: c.name,
    args: Object.fromEntries(Object.keys(c.args).map((k) => [k, `other-${k}`])),
  }));
}

/** The control's calls for a move. */
export function controlCalls(move: ControlMove, production: GenCall[]): GenCall[] {
  if (move === "args") return production.length ? otherArgs(production) : [];
  if (move === "tool")
    return production.length
      ? production.map((c) => OTHER[c.name] as GenCall)
      : [{ name: "Read", args: { path: "a" } }];
  if (move === "invalid") return [{ name: "Delete", args: { path: "/" } }];
  return production;
}

/** The candidate's calls for a move. */
export function candidateCalls(move: CandidateMove, production: GenCall[]): GenCall[] {
  const first = production[0] ?? { name: "Read", args: { path: "a" } };
  if (move === "args") return production.length ? otherArgs(production) : [];
  if (move === "diverge")
    return production.length ? production.map((c) => OTHER[c.name] as GenCall) : [first];
  if (move === "unoffered") return [{ name: "Delete", args: { path: "/" } }];
  if (move === "missing-arg") return [{ name: first.name, args: {} }];
  if (move === "malformed") return [{ ...first, malformed: true }];
  if (move === "stop") return [];
  return production;
}

const names = (calls: GenCall[]) => JSON.stringify(calls.map((c) => c.name).sort());
const valid = (calls: GenCall[]) =>
  calls.every((c) => {
    const t = GEN_TOOLS.find((x) => x.name === c.name);
    return !c.malformed && t !== undefined && t.required.every((r) => r in c.args);
  });

/** The known answer of a step, by the spec's rules, from the planned moves. */
function truthOf(
  step: GenStep,
  hasNext: boolean,
): Omit<PairTruth, "id" | "session" | "depth" | "harvestable"> {
  const control = controlCalls(step.control, step.production);
  const candidate = candidateCalls(step.candidate, step.production);
  const expected = hasNext ? step.production : control;
  if (!valid(expected)) return { skipped: true, reasons: [] };
  const reasons: SelectReason[] = [];
  if (names(candidate) !== names(control) || (hasNext && names(candidate) !== names(step.production)))
    reasons.push("diverged");
  if (!valid(candidate)) reasons.push("invalid-call");
  if (hasNext && step.production.length > 0 && candidate.length === 0) reasons.push("premature-stop");
  const alternative =
    hasNext && JSON.stringify(control) !== JSON.stringify(step.production) && valid(control);
  return {
    expectedFrom: hasNext ? "production" : "control",
    expectedTools: expected.map((c) => c.name),
    alternative,
    reasons,
  };
}

/** Options of a generated session. */
export interface SessionSpec {
  id: string;
  protocol: StepProtocol;
  experiment?: string;
  steps: GenStep[];
  /** Extra text in every tool result, to grow requests (the bench). */
  filler?: string;
  start?: number;
}

/** The pairs of one session, in time order, and the known answer per pair. */
export function sessionPairs(s: SessionSpec): { pairs: Pair[]; truth: PairTruth[] } {
  const pairs: Pair[] = [];
  const truth: PairTruth[] = [];
  const items: unknown[] = [firstUser(s.protocol, `Fix the bug in session ${s.id}`)];
  const real = s.steps.filter((x) => !x.aux && !x.retry);
  let depth = 0;
  let t = s.start ?? Date.parse("2026-11-01T00:00:00Z");
  let last: Record<string, unknown> | undefined;
  s.steps.forEach((step, k) => {
    const id = `${s.id}-${k}`;
    t += 1000;
    const time = new Date(t).toISOString();
    const arm = (calls: GenCall[], trunc: boolean) => ({
      target: { upstream: "up", model: "m" },
      status: 200,
      latency_ms: 10,
      input_tokens: 100,
      output_tokens: 20,
      response: responseBody(s.protocol, calls, trunc),
    });
    const base = {
      id,
      time,
      experiment: s.experiment ?? "exp",
      session_id: s.id,
      protocol: s.protocol,
      cost_usd_estimate: 0.01,
    };
    if (step.aux) {
      pairs.push({
        ...base,
        request: request(s.protocol, [firstUser(s.protocol, "Write a title")], false),
        control: arm([], false),
        candidate: arm([], false),
      } as Pair);
      truth.push({ id, session: s.id, harvestable: false, reasons: [] });
      return;
    }
    if (step.retry && last) {
      pairs.push({
        ...base,
        request: last,
        control: arm(step.production, false),
        candidate: arm(step.production, false),
      } as Pair);
      truth.push({ id, session: s.id, harvestable: false, reasons: [] });
      return;
    }
    const req = request(s.protocol, structuredClone(items), true);
    last = req;
    pairs.push({
      ...base,
      request: req,
      control: arm(controlCalls(step.control, step.production), step.truncated === "control"),
      candidate: arm(candidateCalls(step.candidate, step.production), step.truncated === "candidate"),
    } as Pair);
    const hasNext = depth < real.length - 1;
    truth.push(
      step.truncated
        ? { id, session: s.id, harvestable: false, depth, reasons: [] }
        : { id, session: s.id, harvestable: true, depth, ...truthOf(step, hasNext) },
    );
    items.push(...turnItems(s.protocol, step.production, s.id, depth, s.filler ?? ""));
    depth++;
  });
  return { pairs, truth };
}

const PRODUCTION: GenCall[][] = [
  [{ name: "Read", args: { path: "src/app.ts" } }],
  [{ name: "Grep", args: { pattern: "login" } }],
  [{ name: "Bash", args: { command: "npm test" } }],
  [{ name: "Write", args: { path: "src/app.ts", content: "fixed" } }],
  [
    { name: "Read", args: { path: "a.ts" } },
    { name: "Read", args: { path: "b.ts" } },
  ],
];
const CONTROL: ControlMove[] = ["same", "same", "same", "args", "tool"];
const CANDIDATE: CandidateMove[] = [
  "same",
  "same",
  "same",
  "args",
  "diverge",
  "unoffered",
  "missing-arg",
  "malformed",
  "stop",
];

/** Options of a whole generated store. */
export interface GenOptions {
  seed: number;
  sessions: number;
  maxDepth?: number;
  protocols?: readonly StepProtocol[];
  experiment?: string;
  filler?: number;
  /** Add auxiliary requests, retries and truncated arms (default true). */
  noise?: boolean;
}

/** Seeded random session specs (same seed, same sessions). */
export function generateSessions(o: GenOptions): SessionSpec[] {
  const rnd = prng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const protocols = o.protocols ?? ["anthropic", "bedrock", "responses", "gemini"];
  const noise = o.noise ?? true;
  return Array.from({ length: o.sessions }, (_, n) => {
    const len = 1 + Math.floor(rnd() * (o.maxDepth ?? 25));
    const steps: GenStep[] = [];
    for (let k = 0; k < len; k++) {
      const lastStep = k === len - 1;
      const r = rnd();
      if (noise && k > 0 && r < 0.05)
        steps.push({ production: [], control: "same", candidate: "same", aux: true });
      else if (noise && k > 0 && r < 0.1)
        steps.push({ production: [], control: "same", candidate: "same", retry: true });
      steps.push({
        production: lastStep ? [] : pick(PRODUCTION),
        control: lastStep && rnd() < 0.2 ? "invalid" : pick(CONTROL),
        candidate: pick(CANDIDATE),
        ...(noise && rnd() < 0.05
          ? { truncated: rnd() < 0.5 ? ("control" as const) : ("candidate" as const) }
          : {}),
      });
    }
    // A retry repeats the previous real request: its production moves are that step's.
    steps.forEach((st, i) => {
      if (st.retry)
        st.production =
          steps
            .slice(0, i)
            .filter((x) => !x.aux && !x.retry)
            .at(-1)?.production ?? [];
    });
    return {
      id: `sess-${o.seed}-${n}`,
      protocol: pick(protocols),
      ...(o.experiment ? { experiment: o.experiment } : {}),
      steps,
      ...(o.filler
        ? { filler: "lorem ipsum dolor sit amet ".repeat(Math.ceil(o.filler / 27)).slice(0, o.filler) }
        : {}),
      start: Date.parse("2026-11-01T00:00:00Z") + n * 3_600_000,
    };
  });
}

/** One store line for a pair: plaintext, or sealed with `key`. */
export function pairLine(pair: Pair, key?: PairKey): string {
  const json = JSON.stringify(pair);
  if (!key) return `${json}\n`;
  return `${JSON.stringify({ id: pair.id, time: pair.time, kid: key.kid, enc: seal(json, pair.id, key) })}\n`;
}

/** Writes pairs to `path` line by line (bounded memory); returns bytes written. */
export function writePairStore(
  path: string,
  pairs: Iterable<Pair>,
  o: { key?: PairKey; interleave?: boolean } = {},
): number {
  const fd = openSync(path, "w", 0o600);
  let bytes = 0;
  try {
    for (const p of pairs) bytes += writeSync(fd, pairLine(p, o.key));
  } finally {
    closeSync(fd);
  }
  return bytes;
}
