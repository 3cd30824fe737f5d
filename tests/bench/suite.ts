// The suite lane's bench: trials per minute through runSuite at --parallel 1 and 2, on the Docker
// runner (eval-claude image, 3 fresh containers per trial) and on the LocalRunner as the floor. The
// agent is the stub (a shell script printing Claude Code's result line), so the figure is the suite
// and runner machinery, not a model or CLI; the Docker lane's bench gives the per-trial overhead
// against bare `docker run`. Runs alone: `npx bun tests/bench/suite.ts`.
import { join } from "node:path";
import { dockerRunner } from "../../lib/isolation/docker/index.ts";
import { localRunner } from "../../lib/isolation/local.ts";
import { runSuite } from "../../lib/suite/run.ts";
import { loadSuite } from "../../lib/suite/suite.ts";
import type { SuiteRunner } from "../../lib/suite/trial.ts";
import { ADD_REPO, evalsTree, stubDriver } from "../suite/_support.ts";
import { pinnedVersion } from "../support/agent-clis.ts";
import { tempDir } from "../support/tmp.ts";

interface BenchRow {
  bench: string;
  name: string;
  value: number;
  unit: string;
  ratio?: number;
  baseline?: string;
  target?: string;
}

/** Trials per minute of a `trials`-trial suite (one task, fixer stub, repeats `trials`) at `parallel`. */
async function rate(runner: SuiteRunner, parallel: number, trials: number): Promise<number> {
  using dir = tempDir("suite-bench");
  const tree = evalsTree(dir.path);
  tree.task(
    "fix-add",
    "id: fix-add\nrepo: repo\nsetup: ['test -f add.sh']\nprompt: p\ncheck: sh test.sh\n",
    ADD_REPO,
  );
  const version = pinnedVersion("claude");
  const path = tree.suite(
    "bench",
    `name: bench\ntasks: [fix-add]\nrepeats: ${trials}\nvariants: [{name: fixer, harness: claude, version: "${version}", model: fixer}]\n`,
  );
  const t0 = performance.now();
  const { scorecard } = await runSuite(loadSuite(path), {
    runner,
    drivers: { claude: stubDriver() },
    parallel,
    modelUrl: () => "http://127.0.0.1:9",
    trialsFile: join(dir.path, "trials.jsonl"),
  });
  const minutes = (performance.now() - t0) / 60_000;
  if (scorecard.variants[0]!.pass1 !== 1)
    throw new Error(`suite bench: the stub trials did not pass: ${JSON.stringify(scorecard.trials?.[0])}`);
  return trials / minutes;
}

/** The suite rows. */
export async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Local trials take a fraction of a second; Docker ones about 10 s here (three containers each).
  const local1 = await rate(localRunner(), 1, 8);
  const local2 = await rate(localRunner(), 2, 8);
  const docker1 = await rate(dockerRunner(), 1, 4);
  const docker2 = await rate(dockerRunner(), 2, 4);
  const row = (name: string, value: number, ratio: number, baseline: string): BenchRow => ({
    bench: "suite",
    name,
    value,
    unit: "tr/min",
    ratio,
    baseline,
  });
  rows.push(row("local, --parallel 1", local1, 1, "local p1"));
  rows.push(row("local, --parallel 2", local2, local2 / local1, "local p1"));
  rows.push(row("docker, --parallel 1", docker1, docker1 / local1, "local p1"));
  rows.push(row("docker, --parallel 2", docker2, docker2 / docker1, "docker p1"));
  return rows;
}

if (import.meta.main) console.log(await bench());
