// `eval-steps run`: replays a step suite against one model route and prints the step scorecard.
// Thin: flags -> lib/steps/replay-run.ts -> text or JSON on stdout. Exit 0 with a scorecard (failed
// steps are results), 1 when every call errored (nothing was measured), 2 usage, 3 a bad case file.
import { defineCommand } from "citty";
import { writeFileAtomic } from "../../lib/core/fsx.ts";
import { isInteractive } from "../../lib/core/log.ts";
import { checkFlags, judgeFromFlags, positiveInt, runStepSuite } from "../../lib/steps/replay-run.ts";
import { renderStepsReportHtml } from "../../lib/steps/report.ts";
import { renderStepScorecard } from "../../lib/steps/scorecard.ts";

export const run = defineCommand({
  meta: { name: "run", description: "replay a step suite against a model and score it" },
  args: {
    suite: { type: "string", required: true, description: "the step suite directory (<id>.json cases)" },
    model: { type: "string", required: true, description: "gateway alias or upstream model id" },
    url: { type: "string", required: true, description: "base URL of the gateway or provider" },
    "key-env": { type: "string", required: true, description: "NAME of the variable holding the key" },
    parallel: { type: "string", description: "requests at once (default 4)" },
    output: { type: "string", description: "text (default) or json" },
    scorecard: { type: "string", description: "also write the scorecard JSON to FILE" },
    report: { type: "string", description: "also write a self-contained HTML report to FILE" },
    seed: { type: "string", description: "bootstrap seed (default 1)" },
    region: { type: "string", description: "Bedrock signing region (default: from --url or AWS_REGION)" },
    timeout: { type: "string", description: "seconds to wait for one reply (default 300)" },
    rubric: { type: "string", description: "rubric file: adds a judge score per step (needs --judge-*)" },
    "judge-model": { type: "string", description: "judge model" },
    "judge-url": { type: "string", description: "judge base URL" },
    "judge-key-env": { type: "string", description: "NAME of the variable holding the judge's key" },
    "judge-protocol": { type: "string", description: "anthropic (default), responses, gemini or bedrock" },
  },
  async run({ args }) {
    const { output } = checkFlags(args.output, "--judge-protocol", args["judge-protocol"]);
    const judge = judgeFromFlags({
      rubric: args.rubric,
      model: args["judge-model"],
      url: args["judge-url"],
      keyEnv: args["judge-key-env"],
      protocol: args["judge-protocol"],
    });
    const tty = isInteractive();
    const sc = await runStepSuite({
      suite: args.suite,
      model: args.model,
      url: args.url,
      keyEnv: args["key-env"],
      parallel: positiveInt("--parallel", args.parallel, 4),
      timeoutMs: positiveInt("--timeout", args.timeout, 300) * 1000,
      seed: positiveInt("--seed", args.seed, 1),
      ...(args.region ? { region: args.region } : {}),
      ...(judge ? { judge } : {}),
      ...(tty ? { onResult: (_r, done, total) => process.stderr.write(`\r${done}/${total} steps`) } : {}),
    });
    if (tty) process.stderr.write("\n");
    const json = `${JSON.stringify(sc, null, 2)}\n`;
    if (args.scorecard) writeFileAtomic(args.scorecard, json);
    if (args.report) writeFileAtomic(args.report, renderStepsReportHtml(sc));
    process.stdout.write(output === "json" ? json : renderStepScorecard(sc));
    if (sc.cases > 0 && sc.errors === sc.cases) {
      process.stderr.write(
        `✗ every call errored (first: ${sc.results[0]?.error}): check --url, --model and --key-env\n`,
      );
      return 1;
    }
    return 0;
  },
});
