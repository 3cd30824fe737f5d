// Step replay: each case's request sent non-streaming (again only on a 429 or 5xx) to one model
// route in its own wire protocol, through one rewrite (the model and streaming replaced, nothing
// else), then graded by lib/steps/match.ts. The protocol registry (lib/wire) builds the request and
// reads the answer; lib/wire/call.ts sends it (timeout, bounded retries, no key in an error). An
// errored call fails its case. Loading the suite, the scorecard and printing live elsewhere.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, fileProblem } from "../core/errors.ts";
import { callModel, type Endpoint } from "../wire/call.ts";
import { type Answer, protocol, type WireRequest } from "../wire/index.ts";
import { loadStepCase, type StepCase } from "./case.ts";
import { erroredGrade, gradeAnswer } from "./match.ts";
import type { StepResult } from "./scorecard.ts";

/** Builds the wire request of a case: URL, auth header for the protocol, JSON body. */
export function buildRequest(c: Pick<StepCase, "protocol" | "request">, ep: Endpoint): WireRequest {
  return protocol(c.protocol).buildRequest(c.request, ep);
}

/** Replays one case and grades the answer (an errored call fails the case); the answer for a judge. */
export async function replayCase(
  c: StepCase,
  ep: Endpoint,
): Promise<{ result: StepResult; answer?: Answer }> {
  const reply = await callModel(c.protocol, buildRequest(c, ep), ep);
  const grade = reply.answer ? gradeAnswer(c, reply.answer) : erroredGrade();
  const result: StepResult = {
    id: c.id,
    session: c.provenance.session,
    depth: c.provenance.depth,
    protocol: c.protocol,
    ...grade,
    tools: reply.answer?.calls.map((k) => k.name) ?? [],
    latencyMs: reply.latencyMs,
    ...(reply.error ? { error: reply.error } : {}),
  };
  return reply.answer ? { result, answer: reply.answer } : { result };
}

/** Loads every `*.json` case of a suite directory, in file-name order; a bad case names its file. */
export function loadSuite(dir: string): StepCase[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch (error) {
    throw new ConfigError(`Cannot read step suite "${dir}": ${fileProblem(error, "directory")}`, {
      cause: error,
    });
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) throw new ConfigError(`Cannot load step suite "${dir}": no *.json case files`);
  const cases = names.map((n) => loadStepCase(join(dir, n)));
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new ConfigError(`Cannot load step suite "${dir}": duplicate case id "${c.id}"`);
    seen.add(c.id);
  }
  return cases;
}
