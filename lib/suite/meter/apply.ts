// The bridge's counts become the trial's figures: tokens (input + output), turns and cost, which the
// scorecard, the gate (cost_usd, tokens) and every report read. What the agent's own output said
// (the driver's parse, already on the trial) is kept only as evidence: where it reported a figure in
// the bridge's units and the two differ, the trial carries a `mismatch` entry (a forged result line,
// a CLI that miscounts, a price table that disagrees with the CLI's). Pure.
import type { Trial } from "../scorecard/schema.ts";
import type { Metered, Mismatch } from "./format.ts";

/**
 * The figures each harness's CLI reports in the bridge's units. Codex's turns are its own (one per
 * `exec`, however many model calls), so only its tokens are compared; Gemini CLI reports no cost or
 * turns. A command agent's metrics line is taken at its word: whatever it reports is compared.
 */
const COMPARABLE: Record<string, readonly Mismatch["metric"][]> = {
  codex: ["tokens"],
  gemini: ["tokens"],
  nop: [],
  oracle: [],
};

/** Whether two costs differ by more than rounding: a cent in a dollar, or a millionth of one. */
function costsDiffer(a: number, b: number): boolean {
  return Math.abs(a - b) > 1e-6 + 0.01 * Math.max(Math.abs(a), Math.abs(b));
}

/** Puts the bridge's counts on `trial` in place of the agent's, and flags where the agent's differed. */
export function applyMeter(trial: Trial, meter: Metered, harness: string): void {
  const said = new Set(
    (COMPARABLE[harness] ?? ["cost", "tokens", "turns"]).filter((m) => !trial.unreported?.includes(m)),
  );
  const tokens = meter.input + meter.output;
  const mismatch: Mismatch[] = [];
  if (said.has("cost") && meter.costUSD !== undefined && costsDiffer(meter.costUSD, trial.costUSD))
    mismatch.push({ metric: "cost", bridge: meter.costUSD, agent: trial.costUSD });
  if (said.has("tokens") && tokens !== trial.tokens)
    mismatch.push({ metric: "tokens", bridge: tokens, agent: trial.tokens });
  if (said.has("turns") && meter.turns !== trial.turns)
    mismatch.push({ metric: "turns", bridge: meter.turns, agent: trial.turns });
  trial.tokens = tokens;
  trial.turns = meter.turns;
  trial.costUSD = meter.costUSD ?? 0;
  const unreported: NonNullable<Trial["unreported"]> = (trial.unreported ?? []).filter(
    (m) => m !== "tokens" && m !== "turns" && m !== "cost",
  );
  if (meter.costUSD === undefined) unreported.unshift("cost");
  if (unreported.length > 0) trial.unreported = unreported;
  else delete trial.unreported;
  trial.meter = meter;
  if (mismatch.length > 0) trial.mismatch = mismatch;
}
