// The trial's meter: an observer on the model bridge (lib/isolation/model-proxy.ts `onExchange`) that
// reads each exchange as it ends (lib/wire/exchange.ts) and counts, on the host, what the agent's
// process cannot touch: requests, model turns (2xx replies), input and output tokens as each reply's
// usage reported them (streamed SSE and Bedrock event-streams included) and their cost from the price
// table (prices.ts). It also keeps each exchange's content for the transcript: what the request added
// to the conversation and what the reply said, capped as the transcript is (transcript/format.ts).
import type { Exchange } from "../../isolation/model-proxy.ts";
import { withoutCredentialParams } from "../../wire/credential.ts";
import { readModelCall } from "../../wire/exchange.ts";
import { NO_TOKENS, type Reply, type Said, type Tokens } from "../../wire/reading.ts";
import { capArgs, capText, EXCHANGES_CAP, type ModelExchange, type SaidEntry } from "../transcript/format.ts";
import type { Metered, ModelMeter } from "./format.ts";
import { costOf, type Prices, priceOf } from "./prices.ts";

/** A trial's meter. */
export interface Meter {
  /** The observer an agent phase hands its bridge; once asked for, the trial is metered. */
  observer(): (e: Exchange) => void;
  /** Every exchange so far, as the transcript shows it. */
  readonly exchanges: readonly ModelExchange[];
  /** The counts, or undefined when no agent phase was bridged through this meter. */
  summary(): Metered | undefined;
}

function add(into: Tokens, t: Tokens): void {
  into.input += t.input;
  into.output += t.output;
  into.cacheRead += t.cacheRead;
  into.cacheWrite += t.cacheWrite;
  into.reasoning += t.reasoning;
}

function capCalls(calls: Reply["calls"]): NonNullable<SaidEntry["calls"]> {
  return calls.map((c) => ({ ...c, args: capArgs(c.args) }));
}

function capSaid(s: Said): SaidEntry {
  return {
    role: s.role,
    ...(s.text !== undefined ? { text: capText(s.text) } : {}),
    ...(s.calls ? { calls: capCalls(s.calls) } : {}),
    ...(s.results ? { results: s.results.map((r) => ({ ...r, text: capText(r.text) })) } : {}),
  };
}

/** A request's path as a transcript keeps it: credential parameters left out (a command agent's own `?key=`). */
function shownPath(path: string): string {
  const at = path.indexOf("?");
  return at < 0 ? path : path.slice(0, at) + withoutCredentialParams(path.slice(at));
}

/** The part of `now` after what it shares with `before` (the previous request's conversation). */
function added(before: readonly Said[], now: readonly Said[], replied: boolean): Said[] {
  let k = 0;
  while (k < before.length && k < now.length && JSON.stringify(before[k]) === JSON.stringify(now[k])) k++;
  const rest = now.slice(k);
  // The previous reply comes back as the first new assistant message: it is shown as that reply.
  return replied && k === before.length && rest[0]?.role === "assistant" ? rest.slice(1) : rest;
}

/** A meter pricing with `prices`. */
export function createMeter(prices: Prices): Meter {
  let armed = false;
  let stored = 0;
  const exchanges: ModelExchange[] = [];
  const totals: Tokens = { ...NO_TOKENS };
  const models = new Map<string, ModelMeter>();
  const counts = { requests: 0, turns: 0, failed: 0, unread: 0 };
  const unpriced = new Set<string>();
  let cost = 0;
  let previous: { conversation: Said[]; replied: boolean } = { conversation: [], replied: false };

  const observe = (e: Exchange) => {
    const status = e.response?.status;
    const base: ModelExchange = {
      seq: exchanges.length + 1,
      method: e.request.method,
      path: shownPath(e.request.path),
      ms: Math.round(e.ms),
      ...(status !== undefined ? { status } : {}),
      sent: [],
    };
    const call = readModelCall(e.request.path, e.request.body, status, e.response?.body);
    const ok = status !== undefined && status >= 200 && status <= 299;
    if (e.error !== undefined) base.error = e.error;
    else if (!ok && e.response) base.error = capText(e.response.body.toString("utf8"), 2048);
    if (!call) {
      exchanges.push(base);
      return;
    }
    counts.requests++;
    const complete = ok && e.error === undefined;
    if (complete) counts.turns++;
    else counts.failed++;
    const reply = call.reply;
    const model = call.model ?? reply?.model ?? "unknown";
    const per = models.get(model) ?? { turns: 0, ...NO_TOKENS };
    if (complete) per.turns++;
    const x: ModelExchange = {
      ...base,
      protocol: call.protocol,
      ...(call.model ? { model: call.model } : {}),
    };
    if (reply?.tokens) {
      add(totals, reply.tokens);
      add(per as unknown as Tokens, reply.tokens);
      x.tokens = reply.tokens;
      const entry = priceOf(prices, model) ?? (reply.model ? priceOf(prices, reply.model) : undefined);
      if (entry) {
        const usd = costOf(entry, reply.tokens);
        x.costUSD = usd;
        cost += usd;
        per.costUSD = (per.costUSD ?? 0) + usd;
      } else unpriced.add(model);
    } else if (complete) {
      counts.unread++;
      // A reply with no usage is spent all the same: its model's cost is not known.
      unpriced.add(model);
    }
    models.set(model, per);
    if (call.unreadable !== undefined) x.unreadable = call.unreadable;
    const sent = added(previous.conversation, call.conversation, previous.replied);
    previous = { conversation: call.conversation, replied: reply !== undefined };
    if (stored > EXCHANGES_CAP) x.omitted = true;
    else {
      x.sent = sent.map(capSaid);
      if (reply)
        x.reply = {
          ...(reply.model ? { model: reply.model } : {}),
          text: capText(reply.text),
          calls: capCalls(reply.calls),
          ...(reply.stop ? { stop: reply.stop } : {}),
        };
      stored += JSON.stringify(x).length;
    }
    exchanges.push(x);
  };

  return {
    observer() {
      armed = true;
      return (e) => {
        try {
          observe(e);
        } catch (error) {
          // A meter that cannot read an exchange must not take the bridge down: it says so instead.
          exchanges.push({
            seq: exchanges.length + 1,
            method: e.request.method,
            path: shownPath(e.request.path),
            ms: Math.round(e.ms),
            sent: [],
            unreadable: `meter: ${(error as Error).message}`,
          });
        }
      };
    },
    exchanges,
    summary() {
      if (!armed) return undefined;
      const priced = unpriced.size === 0;
      return {
        source: "bridge",
        ...counts,
        ...totals,
        ...(priced ? { costUSD: cost } : { unpriced: [...unpriced].sort() }),
        prices: prices.label,
        ...(models.size > 0 ? { models: Object.fromEntries(models) } : {}),
      };
    },
  };
}
