// Test support for sharded suite runs: a suite of six tasks x two variants x two repeats (one task's
// agent phase an infrastructure failure), run on the LocalRunner with the stub driver and a runner
// whose agent phases all take 1000 ms (the only measured field of a trial, so two runs of one suite
// give the same trials), whole or as shards in parallel, and the shards' files gathered into one
// directory as a CI job downloading the shards' artifacts would.
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Shard } from "../../../lib/core/shard.ts";
import type { PhaseResult } from "../../../lib/isolation/contract.ts";
import { localRunner } from "../../../lib/isolation/local.ts";
import type { Driver } from "../../../lib/suite/agents/index.ts";
import { runSuite, type SuiteRunOptions } from "../../../lib/suite/run.ts";
import { runShard } from "../../../lib/suite/shard-run.ts";
import { loadSuite, type Suite } from "../../../lib/suite/suite.ts";
import type { SuiteRunner } from "../../../lib/suite/trial.ts";
import { ADD_REPO, evalsTree, infraResult, stubDriver } from "../_support.ts";

export const TASK_IDS = ["t1", "t2", "t3", "t4", "t5", "t6"];
/** The task whose agent phase the runner fails as infrastructure. */
export const INFRA_TASK = "t4";
export const SUITE_YAML = `name: shardy
tasks: [${TASK_IDS.join(", ")}]
control: control
repeats: 2
variants:
  - {name: control, harness: claude, model: noop}
  - {name: fixer, harness: claude, model: fixer}
`;
export const TRIALS_NAME = "shardy.trials.jsonl";

const prompt = (id: string) => (id === INFRA_TASK ? "fix add.sh (engine fails)" : `fix add.sh in ${id}`);

/** Writes the evals tree under `root` and returns the suite file's path. */
export function writeSuite(root: string, promptOf: (id: string) => string = prompt): string {
  const tree = evalsTree(root);
  for (const id of TASK_IDS)
    tree.task(id, `id: ${id}\nrepo: repo\nprompt: ${promptOf(id)}\ncheck: sh test.sh\n`, ADD_REPO);
  return tree.suite("shardy", SUITE_YAML);
}

/** The stub driver, its argv ending in the prompt so the runner can tell the infra task's agent. */
function promptDriver(): Driver {
  const inner = stubDriver();
  return {
    ...inner,
    command: (input) => ({ ...inner.command(input), argv: [...inner.command(input).argv, input.prompt] }),
  };
}

const ENGINE_FAILURE: PhaseResult = infraResult("container start: the engine went away");

/** The LocalRunner with every phase taking 1000 ms, and the infra task's agent failing as infrastructure. */
export function steadyRunner(): SuiteRunner {
  const inner = localRunner();
  return {
    prepare: (runId, repoDir) => inner.prepare(runId, repoDir),
    dispose: (ws) => inner.dispose(ws),
    layout: (ws) => inner.layout!(ws),
    async runPhase(ws, spec) {
      if (spec.phase === "agent" && spec.argv.at(-1) === prompt(INFRA_TASK)) return ENGINE_FAILURE;
      return { ...(await inner.runPhase(ws, spec)), durationMs: 1000 };
    },
  };
}

/** Run options: the steady runner, the prompt driver, seed 3, two trials at once. */
export function options(trialsFile: string, over: Partial<SuiteRunOptions> = {}): SuiteRunOptions {
  return {
    runner: steadyRunner(),
    local: true,
    drivers: { claude: promptDriver() },
    modelUrl: () => "http://127.0.0.1:9",
    parallel: 2,
    seed: 3,
    trialsFile,
    ...over,
  };
}

/** The whole run, its trials file in `dir`. */
export function runWhole(suite: Suite, dir: string) {
  return runSuite(suite, options(join(dir, TRIALS_NAME)));
}

/** The N shards at once, shard K's trials file in `<root>/shard-K/`; resolves to the files. */
export async function runShards(suite: Suite, root: string, count: number): Promise<string[]> {
  const files = Array.from({ length: count }, (_, k) => join(root, `shard-${k}`, TRIALS_NAME));
  await Promise.all(
    files.map((f, index) => runShard(suite, { index, count } satisfies Shard, options(f, { parallel: 1 }))),
  );
  return files;
}

/** Copies the shards' trials files (as shard-K.jsonl) and their logs into `into`, as an artifact download does. */
export function gather(files: readonly string[], into: string): string[] {
  return files.map((f, k) => {
    const logs = join(f, "..", TRIALS_NAME.replace(/\.jsonl$/, ".logs"));
    if (existsSync(logs) && readdirSync(logs).length > 0)
      cpSync(logs, join(into, TRIALS_NAME.replace(/\.jsonl$/, ".logs")), { recursive: true });
    const to = join(into, `shard-${k}.jsonl`);
    cpSync(f, to);
    return to;
  });
}

export { loadSuite };
