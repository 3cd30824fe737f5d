// The trial's meter over exchanges as the bridge hands them over (streamed replies, an error status,
// a non-model request, a model no table prices), and its counts put on the trial in place of the
// agent's own, each contradicted figure flagged.
import { describe, expect, test } from "bun:test";
import type { Exchange } from "../../../lib/isolation/model-proxy.ts";
import { applyMeter } from "../../../lib/suite/meter/apply.ts";
import type { Metered } from "../../../lib/suite/meter/format.ts";
import { createMeter } from "../../../lib/suite/meter/meter.ts";
import type { Prices } from "../../../lib/suite/meter/prices.ts";
import type { Trial } from "../../../lib/suite/scorecard/schema.ts";
import { anthropic, responses } from "../../../lib/wire/index.ts";

const PRICES: Prices = {
  tables: [{ version: 1, date: "2026-12-01", models: [{ match: ["m"], input: 1, output: 2 }] }],
  label: "test 2026-12-01",
};

function exchange(
  path: string,
  body: object,
  reply?: { status: number; body: string | Uint8Array },
  error?: string,
): Exchange {
  return {
    request: {
      method: path === "/" ? "HEAD" : "POST",
      path,
      headers: {},
      body: Buffer.from(JSON.stringify(body)),
    },
    ...(reply ? { response: { status: reply.status, headers: {}, body: Buffer.from(reply.body) } } : {}),
    ...(error ? { error } : {}),
    ms: 12,
  };
}

const user = { role: "user", content: "fix the test" };
const use = { type: "tool_use", id: "t1", name: "Bash", input: { command: "pytest" } };
const result = { type: "tool_result", tool_use_id: "t1", content: "1 failed", is_error: true };
const first = { model: "m", stream: true, messages: [user] };
const second = {
  ...first,
  messages: [user, { role: "assistant", content: [use] }, { role: "user", content: [result] }],
};
const callReply = anthropic.toSse(
  anthropic.toolCallResponse(
    [{ id: "t1", name: "Bash", args: { command: "pytest" } }],
    { input: 100, output: 10 },
    { model: "m" },
  ),
);
const doneReply = anthropic.toSse(anthropic.textResponse("done", { input: 150, output: 5 }, { model: "m" }));

describe("the meter", () => {
  test("a tool loop: HEAD / not counted, a 529 a failed request, each reply's usage summed and priced", () => {
    const meter = createMeter(PRICES);
    const observe = meter.observer();
    observe(exchange("/", {}, { status: 200, body: "" }));
    observe(exchange("/v1/messages?beta=true", first, { status: 200, body: callReply }));
    observe(exchange("/v1/messages?beta=true", second, { status: 529, body: '{"error":"overloaded"}' }));
    observe(exchange("/v1/messages?beta=true", second, { status: 200, body: doneReply }));
    const tokens = (input: number, output: number) => ({
      input,
      output,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    });
    expect(meter.summary()).toEqual({
      source: "bridge",
      requests: 3,
      turns: 2,
      failed: 1,
      unread: 0,
      ...tokens(250, 15),
      costUSD: 120 / 1e6 + 160 / 1e6,
      prices: "test 2026-12-01",
      models: { m: { turns: 2, ...tokens(250, 15), costUSD: 120 / 1e6 + 160 / 1e6 } },
    });
    const base = {
      method: "POST",
      path: "/v1/messages?beta=true",
      ms: 12,
      protocol: "anthropic" as const,
      model: "m",
    };
    expect(meter.exchanges).toEqual([
      { seq: 1, method: "HEAD", path: "/", ms: 12, status: 200, sent: [] },
      {
        ...base,
        seq: 2,
        status: 200,
        sent: [{ role: "user", text: "fix the test" }],
        reply: {
          model: "m",
          text: "",
          calls: [{ name: "Bash", args: { command: "pytest" }, id: "t1" }],
          stop: "tool_use",
        },
        tokens: tokens(100, 10),
        costUSD: 120 / 1e6,
      },
      {
        ...base,
        seq: 3,
        status: 529,
        error: '{"error":"overloaded"}',
        sent: [{ role: "tool", results: [{ id: "t1", text: "1 failed", isError: true }] }],
      },
      {
        ...base,
        seq: 4,
        status: 200,
        sent: [],
        reply: { model: "m", text: "done", calls: [], stop: "end_turn" },
        tokens: tokens(150, 5),
        costUSD: 160 / 1e6,
      },
    ]);
  });

  test("a model no table prices: its cost is not measured, never $0; an unread reply too", () => {
    const meter = createMeter(PRICES);
    const observe = meter.observer();
    const body = { model: "gpt-x", input: "hi", stream: true };
    observe(
      exchange("/v1/responses", body, {
        status: 200,
        body: responses.toSse(responses.textResponse("ok", { input: 7, output: 3 })),
      }),
    );
    observe(
      exchange(
        "/v1/responses",
        { ...body, model: "m" },
        { status: 200, body: "event: response.created\ndata: {}\n\n" },
      ),
    );
    const s = meter.summary();
    expect({ costUSD: s?.costUSD, unpriced: s?.unpriced, unread: s?.unread, turns: s?.turns }).toEqual({
      costUSD: undefined,
      unpriced: ["gpt-x", "m"],
      unread: 1,
      turns: 2,
    });
  });

  test("a request's credential parameters stay out of the transcript's path (a command agent's own ?key=)", () => {
    const meter = createMeter(PRICES);
    const path = "/v1beta/models/gemini-2.5-pro:generateContent?alt=sse&key=AIzaSecretSecretSecret";
    meter.observer()(exchange(path, { contents: [] }, { status: 500, body: "{}" }));
    expect(meter.exchanges.map((x) => x.path)).toEqual([
      "/v1beta/models/gemini-2.5-pro:generateContent?alt=sse",
    ]);
  });

  test("no agent phase bridged through it: no summary, the trial keeps the agent's figures", () => {
    expect(createMeter(PRICES).summary()).toBeUndefined();
  });
});

describe("applyMeter: the bridge's counts on the trial, the agent's contradicted figures flagged", () => {
  const meter: Metered = {
    source: "bridge",
    requests: 2,
    turns: 2,
    failed: 0,
    input: 250,
    output: 15,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
    costUSD: 0.0003,
    prices: "test",
  };
  const trial = (o: Partial<Trial>): Trial => ({
    task: "t",
    variant: "v",
    repeat: 0,
    pass: true,
    costUSD: 0,
    turns: 0,
    wallMs: 1,
    tokens: 0,
    toolErrors: 0,
    ...o,
  });
  const counted = { costUSD: 0.0003, turns: 2, tokens: 265, meter };
  const { costUSD: _, ...noCost } = meter;
  const unpriced: Metered = { ...noCost, unpriced: ["x"] };
  test.each<{ name: string; harness: string; before: Trial; after: Trial; m?: Metered }>([
    {
      name: "a forged result line (Claude: $0, 0 tokens, 0 turns)",
      harness: "claude",
      before: trial({}),
      after: trial({
        ...counted,
        mismatch: [
          { metric: "cost", bridge: 0.0003, agent: 0 },
          { metric: "tokens", bridge: 265, agent: 0 },
          { metric: "turns", bridge: 2, agent: 0 },
        ],
      }),
    },
    {
      name: "an honest CLI: no mismatch (a cost within a cent in a dollar agrees)",
      harness: "claude",
      before: trial({ costUSD: 0.000301, turns: 2, tokens: 265 }),
      after: trial(counted),
    },
    {
      name: "Codex's turns are its own: only its tokens are compared",
      harness: "codex",
      before: trial({ turns: 1, tokens: 265, unreported: ["cost"] }),
      after: trial(counted),
    },
    {
      name: "a command agent that reported nothing: nothing to contradict, its counts measured now",
      harness: "command",
      before: trial({ unreported: ["cost", "turns", "tokens", "toolCalls", "toolErrors"] }),
      after: trial({ ...counted, unreported: ["toolCalls", "toolErrors"] }),
    },
    {
      name: "a command agent's metrics line that under-reports tokens",
      harness: "command",
      before: trial({ tokens: 100, unreported: ["cost", "turns"] }),
      after: trial({ ...counted, mismatch: [{ metric: "tokens", bridge: 265, agent: 100 }] }),
    },
    {
      name: "an unpriced model: cost not measured, never $0",
      harness: "claude",
      before: trial({ costUSD: 0.5, turns: 2, tokens: 265 }),
      m: unpriced,
      after: trial({ ...counted, costUSD: 0, unreported: ["cost"], meter: unpriced }),
    },
  ])("$name", ({ harness, before, after, m }) => {
    applyMeter(before, m ?? meter, harness);
    expect(before).toEqual(after);
  });
});
