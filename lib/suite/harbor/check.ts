// `agent-eval tasks check DIR...` (Harbor's task sanity): each Harbor task runs once with the built-in
// `nop` agent, which must fail (a task that passes untouched measures nothing), and once with
// `oracle`, its solution/solve.sh, which must pass (else the task or its verifier is broken). A task
// that cannot load or run here is a row of its own, never the end of the check: broken when the task
// is at fault (a bad task.toml, a failing build), skipped when this machine or runner is (compose,
// [[steps]], no network, a base image not here). Prints a table; 0 when no task is broken, 1 when
// one is (halo's vocabulary, SUITE_EDGE for errors).
import type { ArgsDef } from "citty";
import { ConfigError, ToolError } from "../../core/errors.ts";
import { flagValues, numberFlag, repeatable } from "../../core/flags.ts";
import { pool } from "../../core/pool.ts";
import { dockerCli } from "../../isolation/docker/engine.ts";
import { checkEngine, dockerRunner, installSignalCleanup } from "../../isolation/docker/index.ts";
import { DRIVERS } from "../agents/index.ts";
import { newRunId } from "../run.ts";
import type { Trial } from "../scorecard/index.ts";
import { runTrial, type SuiteRunner, type TrialContext } from "../trial.ts";
import { parseImageMap, setBuildOptions } from "./image.ts";
import { networkSkip, skipByImages } from "./preflight.ts";
import type { SkippedTask } from "./refusal.ts";
import { type HarborTask, loadHarborTaskSet } from "./task.ts";
import { applyHarborOptions } from "./trial.ts";

/** The flags of `agent-eval tasks check`. */
export const CHECK_ARGS = {
  dir: { type: "positional", required: false, description: "Harbor task directories, or folders of them" },
  "image-map": repeatable({
    type: "string",
    description: "REF=LOCAL: build FROM REF with the local image LOCAL instead (repeatable)",
  }),
  network: { type: "string", description: "none (default) or bridge (lets allow_internet tasks run)" },
  offline: {
    type: "boolean",
    description: "build environment images with --network none (air-gapped machines)",
  },
  parallel: { type: "string", description: "trials at once (default 2)" },
} as const satisfies ArgsDef;

/** One task's sanity: what nop and oracle did (none when it was skipped), and whether it is sound. */
export interface CheckRow {
  task: string;
  nop?: Trial;
  oracle?: Trial;
  ok: boolean;
  why?: string;
  /** True when the task could not be checked here (not its fault): not counted as broken. */
  skipped?: boolean;
}

/** The row of a task that did not load or cannot run here. */
export function skippedRow(s: SkippedTask): CheckRow {
  return { task: s.task, ok: false, why: s.reason, ...(s.broken ? {} : { skipped: true }) };
}

/** A trial in a word: pass, fail, or infra; "-" when there was none. */
function word(t: Trial | undefined): string {
  if (t === undefined) return "-";
  return t.infra !== undefined ? "infra" : t.pass ? "pass" : t.error ? "error" : "fail";
}

/** Sound when nop failed on its merits and oracle passed; else the first reason it is not. */
export function judge(task: string, nop: Trial, oracle: Trial): CheckRow {
  const why =
    nop.infra !== undefined
      ? `nop: ${nop.error}`
      : oracle.infra !== undefined || oracle.error !== undefined
        ? `oracle: ${oracle.error}`
        : nop.pass
          ? "nop passed: the task passes untouched"
          : !oracle.pass
            ? `oracle did not pass (reward ${String(oracle.reward ?? "none")})`
            : undefined;
  return { task, nop, oracle, ok: why === undefined, ...(why !== undefined ? { why } : {}) };
}

/** The table `tasks check` prints. */
export function renderCheck(rows: readonly CheckRow[]): string {
  const w = Math.max(4, ...rows.map((r) => r.task.length));
  const line = (a: string, b: string, c: string, d: string) =>
    `${a.padEnd(w)}  ${b.padEnd(6)}  ${c.padEnd(6)}  ${d}\n`;
  let out = line("task", "nop", "oracle", "status");
  for (const r of rows)
    out += line(
      r.task,
      word(r.nop),
      word(r.oracle),
      r.ok ? "ok" : `${r.skipped ? "skipped" : "broken"}: ${r.why}`,
    );
  const skipped = rows.filter((r) => r.skipped).length;
  const broken = rows.filter((r) => !r.ok).length - skipped;
  const ok = rows.length - broken - skipped;
  return `${out}${ok} of ${rows.length} tasks ok${broken ? `, ${broken} broken` : ""}${skipped ? `, ${skipped} skipped` : ""}\n`;
}

/** The trial context of a built-in agent (nop, oracle): no model, no key, nothing passed in. */
export function builtinContext(
  runId: string,
  runner: SuiteRunner,
  harness: "nop" | "oracle",
  network: "none" | "bridge",
): TrialContext {
  return {
    runId,
    runner,
    driver: DRIVERS[harness],
    image: "",
    repoDir: undefined,
    network,
    passEnv: [],
    modelUrl: "",
    agentModelUrl: "",
    apiKeyEnvName: "",
    workDir: "/work",
    home: "/tmp/home",
  };
}

/** Every task `dirs` name, in order: loaded, or the skip line of one that does not load. */
function loadAll(dirs: readonly string[]): (HarborTask | SkippedTask)[] {
  return dirs.flatMap((d) => {
    const set = loadHarborTaskSet(d);
    if (set === null) throw new ConfigError(`Cannot check "${d}": no task.toml in it nor in its folders`);
    const id = (x: HarborTask | SkippedTask) => ("id" in x ? x.id : x.task);
    return [...set.tasks, ...set.skipped].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  });
}

/** Runs `agent-eval tasks check`: 0 when no task is broken, 1 when one is. */
export async function checkCommand(args: {
  _?: unknown[];
  "image-map"?: unknown;
  network?: string;
  offline?: boolean;
  parallel?: string;
}) {
  const dirs = (args._ ?? []).map(String);
  if (dirs.length === 0)
    throw new ToolError("missing the task directories: agent-eval tasks check DIR...", 1);
  const network = args.network ?? "none";
  if (network !== "none" && network !== "bridge")
    throw new ToolError(`--network: expected none or bridge, got ${JSON.stringify(network)}`, 1);
  const parallel = numberFlag("--parallel", args.parallel, { min: 1, fallback: 2 });
  const imageMap = parseImageMap(flagValues(args["image-map"]));
  const slots = loadAll(dirs).map((x) => ("id" in x ? (networkSkip(x, network) ?? x) : x));
  const tasks = slots.filter((x): x is HarborTask => "id" in x);
  // task.toml keys Harbor ignores that look like typos of keys it reads (typos.ts), before any trial.
  for (const t of tasks)
    for (const w of t.harbor.config.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
  const runId = newRunId();
  const build = { offline: args.offline === true };
  applyHarborOptions(tasks, { imageMap });
  setBuildOptions(tasks, build);
  const rows = new Array<CheckRow>(slots.length);
  slots.forEach((x, i) => {
    if (!("id" in x)) rows[i] = skippedRow(x);
  });
  if (tasks.length > 0) {
    await checkEngine(dockerCli());
    const { skipped } = await skipByImages(dockerCli(), tasks, imageMap, build);
    for (const s of skipped) rows[slots.findIndex((x) => "id" in x && x.id === s.task)] = skippedRow(s);
  }
  const uninstall = installSignalCleanup(runId);
  const runner = dockerRunner();
  const trial = (task: HarborTask, harness: "nop" | "oracle") =>
    runTrial(
      { task, variant: { name: harness, harness }, repeat: 0 },
      builtinContext(runId, runner, harness, network),
    );
  const todo = [...slots.keys()].filter((i) => rows[i] === undefined);
  try {
    await pool(todo, Math.max(1, Math.floor(parallel / 2)), async (i) => {
      const task = slots[i] as HarborTask;
      const [nop, oracle] = await Promise.all([trial(task, "nop"), trial(task, "oracle")]);
      rows[i] = judge(task.id, nop, oracle);
    });
  } finally {
    uninstall();
  }
  process.stdout.write(renderCheck(rows));
  return rows.some((r) => !r.ok && !r.skipped) ? 1 : 0;
}
