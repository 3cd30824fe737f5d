// `npm run quickstart` (scripts/quickstart.ts): a checkout's first result. It serves the mock model of
// evals/suites/skills-ab.replies.yaml on 127.0.0.1 (port 0), runs evals/suites/skills-ab.yaml against it
// with --local (the real Claude Code pinned in evals/clis, two variants that differ only in their
// skills, on this host: no Docker, no images, no root), prints the scorecard and stops the mock. The
// mock takes any key, so the suite gets the placeholder and never reads yours. Each run writes its
// trials, logs and HTML report into a new folder, so running it again starts fresh. Not a tool of the
// binary: it needs a checkout's evals/.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";
import { PLACEHOLDER_KEY } from "../wire/credential.ts";
import { loadMockScript, scriptOf } from "../wire/mock/script-file.ts";
import { startMockModel } from "../wire/mock/server.ts";
import { suiteCommand } from "./cmd.ts";

/** The quickstart's inputs, relative to the checkout. */
export const QUICKSTART = {
  suite: "evals/suites/skills-ab.yaml",
  replies: "evals/suites/skills-ab.replies.yaml",
  /** Where `npm ci --prefix evals/clis` puts the pinned CLIs. */
  clis: "evals/clis/node_modules/.bin",
} as const;

const CHECKOUT = join(import.meta.dirname, "..", "..");

/** Runs the quickstart suite against the mock model on this host; the suite's exit code. */
export async function quickstart(root = CHECKOUT): Promise<number> {
  const clis = join(root, QUICKSTART.clis);
  if (!existsSync(join(clis, "claude")))
    throw new ConfigError(
      `Cannot run the quickstart: no pinned Claude Code at "${join(clis, "claude")}": run \`npm ci --prefix evals/clis\``,
    );
  const replies = loadMockScript(join(root, QUICKSTART.replies));
  const out = mkdtempSync(join(tmpdir(), "proctor-quickstart-"));
  // The suite's --local agents run on this host and find `claude` on PATH; the bridge puts this key on.
  process.env.PATH = `${clis}${delimiter}${process.env.PATH ?? ""}`;
  process.env.ANTHROPIC_API_KEY = PLACEHOLDER_KEY;
  await using mock = await startMockModel({
    script: scriptOf(replies),
    ...(replies.usage ? { usage: replies.usage } : {}),
  });
  const code = await suiteCommand({
    suite: join(root, QUICKSTART.suite),
    local: true,
    "model-url": mock.url,
    trials: join(out, "trials.jsonl"),
    report: join(out, "report.html"),
  });
  createLogger("quickstart").info(`trials, logs and report.html: ${out}`);
  return code;
}
