// agent-eval suite SUITE.yaml: runs every task x variant x repeat of a task suite and prints the
// scorecard. Thin: the flags are declared here, checked and run by lib/suite/cmd.ts (halo's exit
// codes: 0 ran, 1 error).
import { defineCommand } from "citty";
import { onFlagError } from "../../lib/core/flags.ts";
import { type SuiteFlags, suiteCommand } from "../../lib/suite/cmd.ts";

export const suite = defineCommand({
  meta: { name: "suite", description: "run a task suite (task x variant x repeat) and print its scorecard" },
  args: {
    suite: { type: "positional", required: false, description: "the suite file (evals/suites/<name>.yaml)" },
    parallel: { type: "string", description: "trials at once (default 2)" },
    cpus: { type: "string", description: "CPUs per container (default 2)" },
    memory: { type: "string", description: "memory per container (default 4g)" },
    network: {
      type: "string",
      description: "none (default: no egress; the agent reaches only its model) or bridge",
    },
    "pass-env": { type: "string", description: "NAME,... host variables given to the agent step only" },
    seed: { type: "string", description: "bootstrap seed, so intervals reproduce (default 1)" },
    local: { type: "boolean", description: "TESTING ONLY: run every phase on this host, without isolation" },
    output: { type: "string", description: "text (default, Markdown), markdown or json" },
    scorecard: { type: "string", description: "also write the JSON scorecard to FILE" },
    report: {
      type: "string",
      description: "also write a report to FILE (Markdown; HTML if FILE ends in .html)",
    },
    trials: {
      type: "string",
      description: "the trials JSONL file, one line per finished trial (default <suite>.trials.jsonl)",
    },
    resume: {
      type: "boolean",
      description: "keep the finished trials in the trials file and run only the rest",
    },
    "model-url": {
      type: "string",
      description: "the model endpoint agents reach (default: the harness vendor's API)",
    },
    tasks: { type: "string", description: "the tasks directory (default <suite dir>/../tasks)" },
  },
  run: ({ args }) => suiteCommand(args as SuiteFlags),
});

// A repeated or unknown flag is a bad flag: halo's `error: <msg>` and exit 1, like the others.
onFlagError(suite, (e) => {
  process.stderr.write(`error: ${e.message}\n`);
  return 1;
});
