// `agent-eval suite SUITE.yaml`: its flags, flags to options, the run, the outputs. Exit codes are
// halo's (originals.md §6.7, §8): 0 the suite ran (whatever the trials did), 1 an error (SUITE_EDGE:
// `error: <msg>` on stderr; bad flags, a bad suite or task file, no engine, a cancelled run), 3 a
// tripped gate (--fail-on, gate-cmd.ts); 2 (policy issues) belongs to commands this one does not
// have (its subcommand `suite merge` has its own edge: merge-cmd.ts). The scorecard goes to stdout
// (Markdown, the --matrix table, or JSON with --output json) through publish.ts, as a merge's does;
// messages and progress go to stderr.
import type { ArgsDef } from "citty";
import type { ToolEdge } from "../core/cli.ts";
import { ConfigError, ToolError } from "../core/errors.ts";
import { flagValues, numberFlag, repeatable } from "../core/flags.ts";
import { createLogger } from "../core/log.ts";
import { Progress, progressMode } from "../core/progress.ts";
import { parseShard, shardLabel } from "../core/shard.ts";
import { exitOnSignal } from "../core/signals.ts";
import { parseModelUrl } from "../isolation/docker/bridge.ts";
import { BRIDGE_PORT, dockerCli } from "../isolation/docker/engine.ts";
import { checkEngine, dockerRunner, installSignalCleanup } from "../isolation/docker/index.ts";
import { LOCAL_WARNING, localRunner } from "../isolation/local.ts";
import { BASE_IMAGE, imageOf, resolveBaseImage } from "./agents/image.ts";
import { DRIVERS } from "./agents/index.ts";
import { thresholdsOf } from "./gate.ts";
import { GATE_ARGS, type GateFlags, isGated, parseGateFlags, prepareRelease } from "./gate-cmd.ts";
import { parseImageMap, setBuildOptions } from "./harbor/image.ts";
import { keep, skipByImages, skipByNetwork } from "./harbor/preflight.ts";
import { isHarborTask } from "./harbor/task.ts";
import { prepareHarbor } from "./harbor/trial.ts";
import { loadPrices } from "./meter/prices.ts";
import { publishRun, publishShard } from "./publish.ts";
import { checkTrialsFile } from "./resume.ts";
import { newRunId, runSuite, suiteJobs } from "./run.ts";
import { type RunFolder, runFolderFor } from "./runs.ts";
import { failureReason } from "./scorecard/evidence.ts";
import type { Trial } from "./scorecard/index.ts";
import { takeSealKey } from "./seal.ts";
import { shardJobs } from "./shard.ts";
import { runShard } from "./shard-run.ts";
import { loadSuite, type Variant } from "./suite.ts";
import {
  parseUntilFlags,
  runUntilDecided,
  sequentialOptions,
  UNTIL_ARGS,
  type UntilFlags,
} from "./until-decided.ts";

/** halo's edge: every error (a bad flag too) is one `error: <first line>` and exit 1. */
export const SUITE_EDGE: ToolEdge = {
  usageExit: 1,
  remap: () => 1,
  unexpectedExit: 1,
  line: (message) => `error: ${message.split("\n")[0]}`,
};

const str = (description: string) => ({ type: "string", description }) as const;
const bool = (description: string) => ({ type: "boolean", description }) as const;

/** The flags of `agent-eval suite`. */
export const SUITE_ARGS = {
  suite: { type: "positional", required: false, description: "the suite file (evals/suites/<name>.yaml)" },
  parallel: str("trials at once (default 2)"),
  cpus: str("CPUs per container, at least 0.01 (default 2)"),
  memory: str("memory per container (default 4g)"),
  "max-work-bytes": str(
    "most bytes /work may carry between a trial's phases, holes not counted (default 1 GiB)",
  ),
  network: str("none (default: no egress; the agent reaches only its model) or bridge"),
  "pass-env": str("NAME,... host variables given to the agent step only"),
  seed: str("bootstrap seed, so intervals reproduce (default: the suite's seed key, else 1)"),
  local: bool("TESTING ONLY: run every phase on this host, without isolation"),
  output: str("text (default, Markdown), markdown or json"),
  scorecard: str("also write the JSON scorecard to FILE"),
  report: str("also write a report to FILE (Markdown; HTML if FILE ends in .html)"),
  trials: str(
    "the trials JSONL file, one line per finished trial (default: a new run folder, <suite dir>/runs/<suite>-<UTC time>/)",
  ),
  resume: bool(
    "continue the latest unfinished run of this suite (or --trials FILE): its finished trials are kept",
  ),
  "model-url": str("the model endpoint agents reach (default: the harness vendor's API)"),
  tasks: str("the tasks directory (default <suite dir>/../tasks)"),
  "image-map": repeatable({
    type: "string",
    description: "REF=LOCAL: Harbor tasks build FROM REF with the local image LOCAL (repeatable)",
  }),
  offline: bool("Harbor tasks: build environment images with --network none (air-gapped machines)"),
  shard: str("run only shard K/N of the trials (K 0-based), to merge with `agent-eval suite merge`"),
  "seal-key-env": str("with --shard: NAME of the variable holding the key that seals the trials file"),
  prices: str(
    "FILE: the price table the model bridge's meter prices tokens with (default: the built-in table)",
  ),
  ...UNTIL_ARGS,
  ...GATE_ARGS,
} as const satisfies ArgsDef;

/** The flags of `agent-eval suite`, as citty hands them over (strings and booleans). */
export interface SuiteFlags extends GateFlags, UntilFlags {
  suite?: string;
  parallel?: string;
  cpus?: string;
  memory?: string;
  "max-work-bytes"?: string;
  network?: string;
  "pass-env"?: string;
  seed?: string;
  local?: boolean;
  output?: string;
  scorecard?: string;
  report?: string;
  trials?: string;
  resume?: boolean;
  "model-url"?: string;
  tasks?: string;
  "image-map"?: string | string[];
  offline?: boolean;
  shard?: string;
  "seal-key-env"?: string;
  prices?: string;
}

/** Where each harness's CLI talks to by default (its vendor's public API). */
export const DEFAULT_MODEL_URLS: Readonly<Record<string, string>> = {
  claude: "https://api.anthropic.com",
  codex: "https://api.openai.com",
  gemini: "https://generativelanguage.googleapis.com",
};

const PASS_ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
const OUTPUTS = ["text", "json", "markdown"] as const;

function flagError(message: string): ToolError {
  return new ToolError(message, 1);
}

/** Flags checked and normalised; a bad one is a ToolError naming the flag (SUITE_EDGE: exit 1). */
export function parseFlags(f: SuiteFlags) {
  if (!f.suite) throw flagError("missing the suite file: agent-eval suite SUITE.yaml");
  const output = f.output ?? "text";
  if (!(OUTPUTS as readonly string[]).includes(output))
    throw flagError(`--output: expected text, json or markdown, got ${JSON.stringify(output)}`);
  const network = f.network ?? "none";
  if (network !== "none" && network !== "bridge")
    throw flagError(`--network: expected none or bridge, got ${JSON.stringify(network)}`);
  // Docker's least share of a CPU.
  const cpus = numberFlag("--cpus", f.cpus, { integer: false, min: 0.01, fallback: 2 });
  const memory = f.memory ?? "4g";
  if (!/^\d+[bkmg]?$/i.test(memory))
    throw flagError(`--memory: expected a size like 4g or 512m, got ${JSON.stringify(memory)}`);
  const passEnv = (f["pass-env"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const name of passEnv)
    if (!PASS_ENV_NAME.test(name))
      throw flagError(`--pass-env: ${JSON.stringify(name)} is not an UPPER_SNAKE variable name`);
  if (f["model-url"] !== undefined) parseModelUrl(f["model-url"]);
  // A shard is part of a run: only the merged run is gated and recorded.
  const sealKeyEnv = f["seal-key-env"];
  if (sealKeyEnv !== undefined && f.shard === undefined)
    throw flagError(
      "--seal-key-env without --shard: only a shard's trials file is sealed (suite merge checks it)",
    );
  if (sealKeyEnv !== undefined && passEnv.includes(sealKeyEnv))
    throw flagError(`--pass-env ${sealKeyEnv}: the seal key never reaches an agent`);
  for (const flag of ["fail-on", "history"] as const)
    if (f.shard !== undefined && f[flag] !== undefined)
      throw flagError(
        `--${flag} with --shard: give it to agent-eval suite merge, which gates and records the whole run`,
      );
  return {
    suite: f.suite,
    output: output as (typeof OUTPUTS)[number],
    parallel: numberFlag("--parallel", f.parallel, { min: 1, fallback: 2 }),
    network: network as "none" | "bridge",
    limits: { cpus, memory },
    ...(f["max-work-bytes"] !== undefined
      ? { maxWorkBytes: numberFlag("--max-work-bytes", f["max-work-bytes"], { min: 1 })! }
      : {}),
    passEnv,
    seed: numberFlag("--seed", f.seed, { fallback: 1 }),
    local: f.local === true,
    modelUrl: f["model-url"],
    trials: f.trials,
    resume: f.resume === true,
    scorecard: f.scorecard,
    report: f.report,
    tasks: f.tasks,
    offline: f.offline === true,
    shard: f.shard === undefined ? undefined : parseShard(f.shard),
    ...(sealKeyEnv !== undefined ? { sealKeyEnv } : {}),
    release: parseGateFlags(f),
    ...(f.prices !== undefined ? { prices: loadPrices(f.prices) } : {}),
    until: parseUntilFlags(f),
  };
}

/** The --report writer, kept importable from here (its home is publish.ts, shared with suite merge). */
export { writeReport } from "./publish.ts";

/**
 * A finished trial for its progress line: pass, fail, `error: <why>` (it did not run through, or a
 * grader gave no verdict), or `infra <kind>: <why>`, the why on one line (scorecard/evidence.ts).
 */
export function trialWord(t: Trial): string {
  if (t.infra !== undefined) return failureReason(t)!;
  if (t.pass) return "pass";
  return t.error || t.graderError ? `error: ${failureReason(t)}` : "fail";
}

/** Runs `agent-eval suite`: 0 when the suite ran; an error goes to the edge (SUITE_EDGE). */
export async function suiteCommand(flags: SuiteFlags): Promise<number> {
  const o = parseFlags(flags);
  // Taken first and gone from the environment: nothing this run starts (a phase, a task.toml's
  // ${VAR}, an agent under --local) can read it.
  const sealKey = o.sealKeyEnv === undefined ? undefined : takeSealKey(o.sealKeyEnv);
  const log = createLogger("agent-eval");
  let suite = prepareRelease(loadSuite(o.suite, o.tasks ? { tasksDir: o.tasks } : {}), o.release);
  // task.toml keys Harbor ignores that look like typos of keys it reads (harbor/typos.ts).
  for (const t of suite.tasks)
    if (isHarborTask(t)) for (const w of t.harbor.config.warnings ?? []) log.warn(`warning: ${w}`);
  // An explicit --trials FILE is never overwritten; without one the run gets its own folder (below).
  if (o.trials !== undefined) checkTrialsFile(o.trials, o.resume);
  // Harbor tasks this run cannot serve are set aside (suite.skipped, for the scorecard); a shard keeps
  // them, as suite merge (which knows no machine) must see the suite its shards ran.
  if (!o.shard) suite = keep(suite, skipByNetwork(suite.tasks, o.network));
  // Harbor tasks: --image-map, the suite's reward_threshold and timeouts, and --cpus/--memory only
  // when given (else each task's own task.toml timeouts and resources).
  const harbor = prepareHarbor(suite.tasks, {
    imageMap: flags["image-map"],
    ...(suite.rewardThreshold !== undefined ? { threshold: suite.rewardThreshold } : {}),
    ...(suite.agentTimeoutMs !== undefined ? { agentTimeoutMs: suite.agentTimeoutMs } : {}),
    ...(suite.verifierTimeoutMs !== undefined ? { verifierTimeoutMs: suite.verifierTimeoutMs } : {}),
    ...(flags.cpus !== undefined ? { cpus: o.limits.cpus } : {}),
    ...(flags.memory !== undefined ? { memory: o.limits.memory } : {}),
    network: o.network,
    local: o.local,
  });
  if (harbor.internet.length > 0)
    log.warn(
      `warning: ${harbor.internet.join(", ")} reach the internet (allow_internet = true, --network bridge)`,
    );
  for (const v of suite.variants) {
    const name = DRIVERS[v.harness].apiKeyEnvName;
    // command, nop and oracle read no key of ours (a command agent gets its own through --pass-env).
    if (name !== "" && !process.env[name])
      throw new ConfigError(
        `suite ${suite.name}: variant ${v.name}: environment variable ${name} (the model API key) is not set`,
      );
  }
  const runId = newRunId();
  let base = BASE_IMAGE;
  if (o.local) log.warn(LOCAL_WARNING);
  else {
    await checkEngine(dockerCli());
    const build = { offline: o.offline };
    setBuildOptions(suite.tasks, build);
    if (!o.shard)
      suite = keep(
        suite,
        await skipByImages(dockerCli(), suite.tasks, parseImageMap(flagValues(flags["image-map"])), build),
      );
    if (suite.variants.some((v) => imageOf(v) === BASE_IMAGE)) base = await resolveBaseImage(dockerCli());
    if (o.passEnv.length > 0)
      log.warn(
        `warning: --pass-env ${o.passEnv.join(",")} reaches the agent step only, never setup/check; prefer a short-lived gateway token over a real provider key`,
      );
  }
  // No --trials: the run's own folder beside the suite (runs.ts), trials, logs, report and scorecard in
  // it; --resume continues the latest unfinished one of this suite (and shard).
  const folder =
    o.trials === undefined
      ? runFolderFor(o.suite, suite.name, { resume: o.resume, ...(o.shard ? { shard: o.shard } : {}) })
      : undefined;
  const trialsFile = o.trials ?? (folder as RunFolder).trials;
  if (folder)
    log.info(`${suite.name}: ${folder.resumed ? "resuming the run in" : "run folder"} ${folder.dir}`);
  const controller = new AbortController();
  // Under Docker a signal stops starting trials at once, then removes all the run owns and exits.
  const uninstall = o.local ? () => {} : installSignalCleanup(runId, { onSignal: () => controller.abort() });
  // Locally, a first signal stops starting trials (those in flight finish and are kept for --resume);
  // a second one exits at once, and lib/core/proc.ts kills the trials' process groups on the way out.
  const stop = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      log.warn(`${signal}: finishing the trials in flight; again to stop now`);
      controller.abort();
    } else exitOnSignal(signal);
  };
  if (o.local) {
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  }
  const jobs = o.shard ? shardJobs(suiteJobs(suite), o.shard).length : suiteJobs(suite).length;
  // A terminal gets the live line; a log (CI, a pipe) one line per finished trial.
  const title = `suite ${suite.name}${o.shard ? ` shard ${shardLabel(o.shard)}` : ""}`;
  let progress = new Progress(jobs, progressMode(), process.stderr, title);
  const label = (j: { task: { id: string }; variant: { name: string }; repeat: number }) =>
    `${j.task.id}/${j.variant.name}#${j.repeat}`;
  const startedAt = new Map<string, number>();
  let exit = 0;
  try {
    // Without --model-url a command, nop or oracle variant reaches no model ("": nothing is bridged).
    const modelUrl = (v: Variant) => o.modelUrl ?? DEFAULT_MODEL_URLS[v.harness] ?? "";
    const runOpts: Parameters<typeof runSuite>[1] = {
      runId,
      runner: o.local ? localRunner() : dockerRunner(o.maxWorkBytes ? { maxWorkBytes: o.maxWorkBytes } : {}),
      image: (v: Variant) => imageOf(v, base),
      local: o.local,
      drivers: DRIVERS,
      parallel: o.parallel,
      network: o.network,
      limits: o.limits,
      passEnv: o.passEnv,
      ...(o.prices ? { prices: o.prices } : {}),
      // The suite's `seed` is the default; a --seed given wins.
      seed: flags.seed === undefined && suite.seed !== undefined ? suite.seed : o.seed,
      modelUrl,
      ...(o.local
        ? {}
        : { agentModelUrl: (url: string) => `http://127.0.0.1:${BRIDGE_PORT}${parseModelUrl(url).path}` }),
      trialsFile,
      resume: o.resume,
      ...(sealKey ? { sealKey } : {}),
      signal: controller.signal,
      onResumed: (n) => progress.skip(n),
      onStart: (j) => {
        startedAt.set(label(j), performance.now());
        progress.start(label(j));
      },
      onFinish: (j, t) =>
        progress.finish(label(j), {
          result: trialWord(t),
          ms: performance.now() - (startedAt.get(label(j)) ?? performance.now()),
        }),
    };
    const { scorecard, trials, resumed } = o.shard
      ? await runShard(suite, o.shard, runOpts)
      : o.until
        ? await runUntilDecided(
            suite,
            runOpts,
            o.until,
            sequentialOptions(isGated(suite, o.release), thresholdsOf(suite.gate).maxPassDrop),
            (r, n) => {
              progress.clear();
              progress = new Progress(n, progressMode(), process.stderr, `${title} round ${r + 1}`);
            },
            (m) => log.warn(m),
          )
        : await runSuite(suite, runOpts);
    progress.clear();
    if (resumed > 0) log.info(`resumed: ${resumed} finished trials kept, ${trials.length - resumed} run`);
    // A shard prints its progress and writes its trials: never a gate or a decision on part of the run.
    if (o.shard || scorecard === undefined)
      await publishShard(
        { title, trialsFile, trials, ...(scorecard ? { scorecard } : {}) },
        { ...o, ...(folder ? { runDir: folder.dir } : {}) },
        log,
      );
    else {
      exit = await publishRun(
        {
          suite,
          scorecard,
          trials,
          logBase: trialsFile,
          internet: harbor.internet.filter((id) => suite.tasks.some((t) => t.id === id)),
        },
        { ...o, ...(folder ? { runDir: folder.dir } : {}) },
        log,
      );
    }
    if (folder) log.info(`${suite.name}: trials, logs, report.html and scorecard.json in ${folder.dir}`);
    if (o.local) log.warn(LOCAL_WARNING);
  } finally {
    progress.clear();
    uninstall();
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return exit;
}
