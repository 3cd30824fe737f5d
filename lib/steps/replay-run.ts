// `eval-steps run` as one call: check the options, read the key from the variable --key-env names
// (never from argv), load the suite, replay every case with bounded parallelism, optionally ask a
// judge for a secondary score per step, and build the scorecard. Printing and exit codes stay at
// the command (lib/steps/cmd.ts).
import { UsageError } from "../core/errors.ts";
import { pool } from "../core/pool.ts";
import type { Shard } from "../core/shard.ts";
import { stampShard } from "../core/shard-set.ts";
import type { Endpoint } from "../wire/call.ts";
import { STEP_PROTOCOLS, type StepCase } from "./case.ts";
import { type JudgeRoute, judgeStep, readRubric } from "./judge.ts";
import { loadSuite, replayCase } from "./replay.ts";
import { buildStepScorecard, type StepResult, type StepScorecard } from "./scorecard.ts";

/** Options of one suite run, as the command line gives them. */
export interface RunOptions {
  suite: string;
  model: string;
  url: string;
  /** The variable holding the route's key; absent, no credential is sent (a keyless mock). */
  keyEnv?: string;
  parallel?: number;
  region?: string;
  timeoutMs?: number;
  seed?: number;
  /** Replay only this part of the suite: whole sessions, dealt by lib/core/shard.ts. */
  shard?: Shard;
  judge?: { rubric: string; model: string; url: string; keyEnv: string; protocol: JudgeRoute["protocol"] };
  env?: Record<string, string | undefined>;
  fetch?: typeof fetch;
  onResult?: (r: StepResult, done: number, total: number) => void;
}

/** Reads the key from the variable `name`; UsageError when the name is bad or the variable empty. */
export function keyFromEnv(flag: string, name: string, env: Record<string, string | undefined>): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    // Not echoed: a value here is most likely the key itself, pasted by mistake.
    throw new UsageError(
      `${flag} takes the NAME of an environment variable (letters, digits, _), not its value`,
    );
  const value = env[name];
  if (!value) throw new UsageError(`${flag} ${name}: the variable is not set or empty`);
  return value;
}

/** The protocols a route may speak, as the --*-protocol flags name them. */
export const ROUTE_PROTOCOLS = STEP_PROTOCOLS;

/** Replays the suite and returns its scorecard. */
export async function runStepSuite(o: RunOptions): Promise<StepScorecard> {
  const env = o.env ?? process.env;
  for (const [flag, v] of [
    ["--model", o.model],
    ["--url", o.url],
  ] as const)
    if (!v) throw new UsageError(`${flag} is required`);
  if (!/^https?:\/\//.test(o.url)) throw new UsageError(`--url must be an http(s) URL, got "${o.url}"`);
  const ep: Endpoint = {
    url: o.url,
    model: o.model,
    // Without --key-env no credential goes out (a keyless mock, a local model).
    key: o.keyEnv === undefined ? "" : keyFromEnv("--key-env", o.keyEnv, env),
    ...((o.region ?? env.AWS_REGION) ? { region: o.region ?? env.AWS_REGION } : {}),
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const judge = o.judge
    ? {
        route: {
          ...o.judge,
          key: keyFromEnv("--judge-key-env", o.judge.keyEnv, env),
          ...(o.fetch ? { fetch: o.fetch } : {}),
        },
        rubric: readRubric(o.judge.rubric),
      }
    : undefined;
  // A shard replays whole sessions (grouped by the session hash) so session-clustered intervals of
  // the merged scorecard see every step of a session together, as an unsharded run does.
  const all = loadSuite(o.suite);
  const { units: cases, stamp } = o.shard
    ? stampShard(
        all,
        o.shard,
        (c) => c.id,
        (c) => c.provenance.session,
      )
    : { units: all, stamp: undefined };
  let done = 0;
  const results = await pool(cases, o.parallel ?? 4, async (c: StepCase) => {
    const { result, answer } = await replayCase(c, ep);
    const r =
      judge && answer
        ? { ...result, judge: await judgeStep(judge.route, judge.rubric.text, c, answer) }
        : result;
    o.onResult?.(r, ++done, cases.length);
    return r;
  });
  const sc = buildStepScorecard(o.suite, o.model, results, {
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(judge ? { judge: { model: judge.route.model, rubric: judge.rubric.digest } } : {}),
  });
  return stamp ? { ...sc, shard: stamp } : sc;
}
