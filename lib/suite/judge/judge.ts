// The suite's rubric judge: openJudge() turns the suite's `judge:` key into a client once per run (the
// key read from the variable it names, here and nowhere else, and sent only in the protocol's auth
// header), and judgeTrial() scores one trial's change against one rubric: the seeded order and the
// fenced prompt (prompt.ts), the cache (cache.ts), one call through lib/wire (timeout, retries on 429
// and 5xx), the strict reply (verdict.ts). A failed call or a malformed reply is the grade's `error`
// (counted in gradeErrors, never a pass), never a throw. trialJudge() is the shape graders/ calls.

import { join } from "node:path";
import { ConfigError, ToolError, UpstreamError, UsageError } from "../../core/errors.ts";
import { newNonce, renderPrompt } from "../../judge/fence.ts";
import { callModel, type Endpoint } from "../../wire/call.ts";
import { protocol, type WireName } from "../../wire/index.ts";
import { cacheKey, VerdictCache } from "./cache.ts";
import { JUDGE_WIRES, type JudgeFile, type JudgeWire, loadRubric, type Rubric } from "./config.ts";
import {
  type ChangedFile,
  type ChangeView,
  type ShownOrder,
  shownOrder,
  systemPrompt,
  type TrialRef,
  trialParts,
} from "./prompt.ts";
import { parseVerdict } from "./verdict.ts";

/** How the judge is reached besides the file: the suite's directory (for `cache`), env, transport. */
export interface JudgeOptions extends Pick<Endpoint, "retries" | "backoff" | "fetch" | "now"> {
  suiteDir: string;
  env?: Record<string, string | undefined>;
  /** Each attempt's limit (default 120 000 ms, the original's client timeout). */
  timeoutMs?: number;
}

/** An opened judge: which wire and model, and what it needs to call (the key is inside `endpoint`). */
export interface Judge {
  wire: JudgeWire;
  model: string;
  readonly endpoint: Endpoint;
  readonly cache: VerdictCache;
  readonly rubrics: Map<string, Rubric>;
}

/** One trial's judgement against one rubric: a score and pass, or an error; the order it was shown. */
export interface JudgeGrade {
  /** The rubric's id@version. */
  rubric: string;
  pass: boolean;
  /** The weighted score in 0..1; null when the judge gave no verdict. */
  score: number | null;
  scores?: Record<string, number>;
  rationale?: string;
  error?: string;
  order: ShownOrder;
  cached?: boolean;
}

const TIMEOUT_MS = 120_000;

/**
 * Opens the judge of a suite's `judge:` key: UsageError when the key's variable is unset or empty,
 * ConfigError when its route cannot be built (Bedrock's AWS keys with no region anywhere).
 */
export function openJudge(file: JudgeFile, o: JudgeOptions): Judge {
  const env = o.env ?? process.env;
  let key = "";
  if (file.api_key_env !== undefined) {
    key = env[file.api_key_env] ?? "";
    if (key === "")
      throw new UsageError(`judge.api_key_env ${file.api_key_env}: the variable is not set or empty`);
  }
  const region = file.region ?? env.AWS_REGION;
  const endpoint: Endpoint = {
    url: file.url,
    model: file.model,
    key,
    timeoutMs: o.timeoutMs ?? TIMEOUT_MS,
    ...(region ? { region } : {}),
    ...(o.retries !== undefined ? { retries: o.retries } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
    ...(o.now ? { now: o.now } : {}),
  };
  try {
    // Built once now, so a route that can never be called (Bedrock's AWS keys without a region) stops
    // the run before any trial instead of failing every judge grade.
    protocol(JUDGE_WIRES[file.wire]).buildRequest({}, endpoint);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    throw new ConfigError(
      `Cannot use the suite's judge: ${error.message.replace("--region", "judge.region")}`,
    );
  }
  return {
    wire: file.wire,
    model: file.model,
    endpoint,
    cache: new VerdictCache(file.cache === undefined ? undefined : join(o.suiteDir, file.cache), key),
    rubrics: new Map(),
  };
}

/** What one judgement needs: the rubric, the task's prompt, the changed files shown and the whole change's view, which trial. */
export interface TrialInput {
  rubric: Rubric;
  prompt: string;
  changed: readonly ChangedFile[];
  view?: ChangeView;
  trial: TrialRef;
}

/** Scores one trial against one rubric; never throws for the judge's own failures. */
export async function judgeTrial(judge: Judge, input: TrialInput): Promise<JudgeGrade> {
  const { rubric } = input;
  const shown = shownOrder(rubric, input.changed, input.trial);
  const parts = trialParts(input.prompt, shown.files, input.view);
  const head = { rubric: rubric.ref, order: shown.order };
  const key = cacheKey(rubric, judge, shown.order.criteria, parts);
  const hit = judge.cache.get(key, rubric);
  if (hit) return { ...head, pass: hit.score >= rubric.passThreshold, ...hit, cached: true };
  const failed = (error: string): JudgeGrade => ({ ...head, pass: false, score: null, error });
  const name: WireName = JUDGE_WIRES[judge.wire];
  const nonce = newNonce();
  const body = protocol(name).judgeRequest(judge.model, renderPrompt(parts, nonce), {
    system: systemPrompt(rubric, shown.criteria, nonce),
    temperature: 0,
    maxTokens: 1024,
  });
  let reply: Awaited<ReturnType<typeof callModel>>;
  try {
    const req = protocol(name).buildRequest(body, judge.endpoint);
    reply = await callModel(name, { ...req, headers: withoutEmptyAuth(req.headers) }, judge.endpoint);
  } catch (error) {
    if (error instanceof ToolError) return failed(`judge: ${error.message}`);
    throw error;
  }
  if (reply.error !== undefined) return failed(`judge: ${reply.error}`);
  const text = reply.answer?.text ?? "";
  if (text === "") return failed(`judge: ${judge.wire} response has no text`);
  const v = parseVerdict(rubric, text);
  if ("error" in v) return failed(v.error);
  try {
    judge.cache.put(key, v);
  } catch (error) {
    // As the original: a verdict that cannot be kept is an error, not a silent extra call next time.
    return failed(`judge cache: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { ...head, pass: v.score >= rubric.passThreshold, ...v };
}

/** No key configured: no auth header at all, rather than an empty one. */
function withoutEmptyAuth(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([, v]) => v.trim() !== "" && v.trim() !== "Bearer"),
  );
}

/** A judge that gave no verdict, for callers that take a throw as the grade's error. */
export class JudgeError extends UpstreamError {
  constructor(message: string) {
    super(message);
    this.name = "JudgeError";
  }
}

/**
 * The per-trial judge graders/ calls: `(rubricPath, {prompt, changed})` -> the verdict with the
 * rubric's ref, pass, score, rationale and the order shown; throws JudgeError when no verdict came
 * (graders/ records its message as the grade's error). Rubrics load once per path.
 */
export function trialJudge(judge: Judge, trial: TrialRef) {
  return async (
    rubricPath: string,
    input: { prompt: string; changed: readonly ChangedFile[]; view?: ChangeView },
  ) => {
    let rubric = judge.rubrics.get(rubricPath);
    if (rubric === undefined) {
      rubric = loadRubric(rubricPath);
      judge.rubrics.set(rubricPath, rubric);
    }
    const g = await judgeTrial(judge, { rubric, ...input, trial });
    if (g.error !== undefined || g.score === null) throw new JudgeError(g.error ?? "judge: no verdict");
    return { ...g, score: g.score, rationale: g.rationale ?? "" };
  };
}

/**
 * The run's judge as graders/ wants it, per trial: undefined without a `judge:` key; else opened once
 * (the key read now) and handed out as `(task, repeat) => trialJudge`, the order seeded by `seed`
 * (the suite's `seed` key; the original's default is 0).
 */
export function judgeForRun(
  file: JudgeFile | undefined,
  o: JudgeOptions & { seed: number },
): ((task: string, repeat: number) => ReturnType<typeof trialJudge>) | undefined {
  if (file === undefined) return undefined;
  const judge = openJudge(file, o);
  return (task, repeat) => trialJudge(judge, { seed: o.seed, task, repeat });
}
