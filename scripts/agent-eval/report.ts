// agent-eval report RUN_DIR [--out FILE.html]: a promotion run as one self-contained HTML page (the
// verdict, both arms with intervals, leak and isolation evidence). Prints one JSON object on stdout
// (sorted keys): {"report", "run_dir", "verdict"}, or {"error", "exit"} like the lane's other
// subcommands. Exit 0, 2 (usage), 3 (not a run directory or a malformed provenance), 4 (the report
// cannot be written).
import { resolve } from "node:path";
import { defineCommand } from "citty";
import { messageOf, ToolError, UsageError } from "../../lib/core/errors.ts";
import { stdoutJson } from "../../lib/promotion/records.ts";
import { loadPromotionRun, renderPromotionReportHtml } from "../../lib/promotion/report.ts";
import { checkReportPath, writeReport } from "../../lib/report/index.ts";

export const report = defineCommand({
  meta: { name: "report", description: "render a promotion run as one self-contained HTML file" },
  args: {
    run_dir: {
      type: "positional",
      required: false,
      description: "the run directory (<store>/runs/<run-id>)",
    },
    out: { type: "string", description: "where to write the report (default: RUN_DIR/report.html)" },
  },
  run({ args }) {
    try {
      if (!args.run_dir) throw new UsageError("missing RUN_DIR: agent-eval report RUN_DIR [--out FILE.html]");
      const run = loadPromotionRun(args.run_dir);
      const out = resolve(args.out ?? `${run.runDir}/report.html`);
      checkReportPath(out, "--out");
      writeReport(out, renderPromotionReportHtml(run));
      const verdict = run.provenance.verdict?.result ?? null;
      process.stdout.write(`${stdoutJson({ report: out, run_dir: run.runDir, verdict })}\n`);
      process.stderr.write(`✓ report written: ${out}\n`);
      return 0;
    } catch (error) {
      // The lane's contract: one JSON object on stdout, also on failure; the edge prints the line.
      const code = error instanceof ToolError ? error.exitCode : 4;
      const exit = code === 0 || code === 1 ? 4 : code;
      process.stdout.write(`${stdoutJson({ error: messageOf(error).split("\n")[0], exit })}\n`);
      throw error;
    }
  },
});
