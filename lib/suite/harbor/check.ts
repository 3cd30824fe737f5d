// `agent-eval tasks check DIR...` (Harbor's task sanity): each Harbor task runs once with the built-in
// `nop` agent, which must fail (a task that passes untouched measures nothing), and once with
// `oracle`, its solution/solve.sh, which must pass (else the task or its verifier is broken). Prints
// a table; 0 when every task is sound, 1 when any is broken (halo's vocabulary, SUITE_EDGE for errors).
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
import { parseImageMap } from "./image.ts";
import type { HarborTask } from "./task.ts";
import { loadHarborTasksAt } from "./task.ts";
import { applyHarborOptions } from "./trial.ts";

/** The flags of `agent-eval tasks check`. */
export const CHECK_ARGS = {
  dir: { type: "positional", required: false, description: "Harbor task directories, or folders of them" },
  "image-map": repeatable({
    type: "string",
    description: "REF=LOCAL: build FROM REF with the local image LOCAL instead (repeatable)",
  }),
  network: { type: "string", description: "none (default) or bridge (lets allow_internet tasks run)" },
  parallel: { type: "string", description: "trials at once (default 2)" },
} as const satisfies ArgsDef;

/** One task's sanity: what nop and oracle did, and whether the task is sound. */
export interface CheckRow {
  task: string;
  nop: Trial;
  oracle: Trial;
  ok: boolean;
  why?: string;
}

/** A trial in a word: pass, fail, or infra. */
function word(t: Trial): string {
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
  for (const r of rows) out += line(r.task, word(r.nop), word(r.oracle), r.ok ? "ok" : `broken: ${r.why}`);
  const broken = rows.filter((r) => !r.ok).length;
  return `${out}${rows.length - broken} of ${rows.length} tasks ok${broken ? `, ${broken} broken` : ""}\n`;
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

/** Runs `agent-eval tasks check`: 0 when every task is sound, 1 when one is broken. */
export async function checkCommand(args: {
  _?: unknown[];
  "image-map"?: unknown;
  network?: string;
  parallel?: string;
}) {
  const dirs = (args._ ?? []).map(String);
  if (dirs.length === 0)
    throw new ToolError("missing the task directories: agent-eval tasks check DIR...", 1);
  const network = args.network ?? "none";
  if (network !== "none" && network !== "bridge")
    throw new ToolError(`--network: expected none or bridge, got ${JSON.stringify(network)}`, 1);
  const parallel = numberFlag("--parallel", args.parallel, { min: 1, fallback: 2 });
  const tasks: HarborTask[] = dirs.flatMap((d) => {
    const found = loadHarborTasksAt(d);
    if (found === null) throw new ConfigError(`Cannot check "${d}": no task.toml in it nor in its folders`);
    return found;
  });
  applyHarborOptions(tasks, { imageMap: parseImageMap(flagValues(args["image-map"])) });
  await checkEngine(dockerCli());
  const runId = newRunId();
  const uninstall = installSignalCleanup(runId);
  const runner = dockerRunner();
  const trial = (task: HarborTask, harness: "nop" | "oracle") =>
    runTrial(
      { task, variant: { name: harness, harness }, repeat: 0 },
      builtinContext(runId, runner, harness, network),
    );
  const rows = new Array<CheckRow>(tasks.length);
  try {
    await pool([...tasks.keys()], Math.max(1, Math.floor(parallel / 2)), async (i) => {
      const [nop, oracle] = await Promise.all([trial(tasks[i]!, "nop"), trial(tasks[i]!, "oracle")]);
      rows[i] = judge(tasks[i]!.id, nop, oracle);
    });
  } finally {
    uninstall();
  }
  process.stdout.write(renderCheck(rows));
  return rows.every((r) => r.ok) ? 0 : 1;
}
