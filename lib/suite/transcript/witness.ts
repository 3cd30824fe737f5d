// What a trial leaves for its transcript while it runs: the meter on its model bridge, each phase's
// result as recorded, /work before and after the agent (its diff), and, once the trial ended, the
// transcript itself (format.ts) with the failure read out of it: the trial's error, the check's
// exit and the last tool call that failed. Reading /work never fails a trial: a runner it cannot
// read leaves the diff out.
import type { PhaseResult, Workspace } from "../../isolation/contract.ts";
import { type WorkTree, workTreeOf } from "../../isolation/work-tree.ts";
import { createMeter, type Meter } from "../meter/meter.ts";
import type { Prices } from "../meter/prices.ts";
import type { Trial } from "../scorecard/schema.ts";
import { diffTrees } from "./diff.ts";
import {
  ARGS_CAP,
  capTail,
  capText,
  EVENTS_CAP,
  type ModelExchange,
  type PhaseRecord,
  resultFailed,
  type Transcript,
} from "./format.ts";

/** A trial's witness: its meter and what its phases did. */
export interface Witness {
  readonly meter: Meter;
  /** Each phase's result, in order (the trial's recorder adds them). */
  record(phase: string, r: PhaseResult): void;
  /** /work as the agent found it (call before the agent phase). */
  beforeAgent(ws: Workspace): void;
  /** /work as the agent left it (call after the agent phase): the diff. */
  afterAgent(ws: Workspace): void;
  /** The transcript of the finished trial (not yet redacted: write.ts does that). */
  transcript(trial: Trial, harness: string): Transcript;
}

function tree(ws: Workspace): WorkTree | undefined {
  try {
    return workTreeOf(ws);
  } catch {
    return undefined;
  }
}

/** The CLI's own event stream in its stdout: one JSON document (Gemini), or JSON lines (Claude, Codex). */
export function cliEvents(stdout: string): Transcript["cli"] {
  const whole = stdout.trim();
  if (whole.startsWith("{") && !whole.includes("\n{"))
    try {
      return { format: "json", events: [JSON.parse(whole) as unknown] };
    } catch {
      // not one document: try lines
    }
  const events: unknown[] = [];
  for (const line of stdout.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      events.push(t.length <= ARGS_CAP ? (JSON.parse(t) as unknown) : { cut: capText(t, ARGS_CAP) });
    } catch {
      // noise between events
    }
  }
  if (events.length === 0) return undefined;
  const dropped = events.length - EVENTS_CAP;
  return { format: "jsonl", events: events.slice(0, EVENTS_CAP), ...(dropped > 0 ? { dropped } : {}) };
}

/** The last tool call whose result came back as a failure (format.ts resultFailed), in one line. */
export function failedCall(exchanges: readonly ModelExchange[]): string | undefined {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  let last: string | undefined;
  for (const x of exchanges) {
    for (const s of x.sent)
      for (const r of s.results ?? []) {
        if (!resultFailed(r)) continue;
        const call = r.id !== undefined ? calls.get(r.id) : undefined;
        const name = call?.name ?? r.name ?? "a tool";
        const what = call ? ` ${capText(JSON.stringify(call.args), 160)}` : "";
        last = `${name}${what} failed: ${capText(r.text.trim().split("\n")[0] ?? "", 200)}`;
      }
    for (const c of x.reply?.calls ?? []) if (c.id !== undefined) calls.set(c.id, c);
  }
  return last;
}

function phaseRecord(phase: string, r: PhaseResult): PhaseRecord {
  return {
    phase,
    exit: r.exitCode,
    timedOut: r.timedOut,
    ms: Math.round(r.durationMs),
    ...(r.infraError !== undefined ? { infra: r.infraError } : {}),
    stdout: capTail(r.stdout),
    stderr: capTail(r.stderr),
  };
}

/** A witness for one trial, its meter pricing with `prices`. */
export function createWitness(prices: Prices): Witness {
  const meter = createMeter(prices);
  const phases: { phase: string; r: PhaseResult }[] = [];
  let before: WorkTree | undefined;
  let diff: Transcript["diff"];
  return {
    meter,
    record: (phase, r) => phases.push({ phase, r }),
    beforeAgent(ws) {
      before = tree(ws);
    },
    afterAgent(ws) {
      const after = before && tree(ws);
      if (before && after) diff = diffTrees(before, after);
    },
    transcript(trial, harness) {
      const agent = phases.findLast((p) => p.phase === "agent");
      const cli = agent ? cliEvents(agent.r.stdout) : undefined;
      const failure = trial.pass ? undefined : failedCall(meter.exchanges);
      return {
        version: 1,
        task: trial.task,
        variant: trial.variant,
        repeat: trial.repeat,
        harness,
        outcome: {
          pass: trial.pass,
          ...(trial.error !== undefined ? { error: trial.error } : {}),
          ...(trial.infra !== undefined ? { infra: trial.infra } : {}),
          ...(failure !== undefined ? { failure } : {}),
        },
        ...(trial.meter ? { meter: trial.meter } : {}),
        ...(trial.mismatch ? { mismatch: trial.mismatch } : {}),
        exchanges: [...meter.exchanges],
        ...(cli ? { cli } : {}),
        // The agent's stdout is its event stream, shown as `cli` when it parsed: not twice.
        phases: phases.map((p) =>
          p.phase === "agent" && cli
            ? { ...phaseRecord(p.phase, p.r), stdout: "(the CLI's events: see cli)" }
            : phaseRecord(p.phase, p.r),
        ),
        ...(diff ? { diff } : {}),
      };
    },
  };
}
