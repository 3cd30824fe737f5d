// The one place that finds the pinned real agent CLIs (evals/clis, installed by
// `npm ci --prefix evals/clis`). A missing CLI fails the test with that command; nothing here skips.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Harness } from "../../lib/suite/suite.ts";
import { REPO_ROOT } from "./tools.ts";

const CLIS = join(REPO_ROOT, "evals", "clis");
const MODULES = join(CLIS, "node_modules");
const INSTALL = "npm ci --prefix evals/clis";

/** The npm package of each harness's CLI. */
export const CLI_PACKAGES = {
  claude: "@anthropic-ai/claude-code",
  codex: "@openai/codex",
  gemini: "@google/gemini-cli",
} as const satisfies Record<Harness, string>;

/** The pinned versions, read from evals/clis/package.json (the single source). */
export function pinnedVersion(harness: Harness): string {
  const pkg = JSON.parse(readFileSync(join(CLIS, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const version = pkg.dependencies[CLI_PACKAGES[harness]];
  if (!version) throw new Error(`evals/clis/package.json pins no ${CLI_PACKAGES[harness]}`);
  return version;
}

/** The executable of a pinned CLI; throws with the install command when it is missing or the wrong version. */
export function agentCli(harness: Harness): string {
  const bin = join(MODULES, ".bin", harness);
  const pkgJson = join(MODULES, CLI_PACKAGES[harness], "package.json");
  if (!existsSync(bin) || !existsSync(pkgJson))
    throw new Error(`Missing the pinned ${harness} CLI (${bin}): run \`${INSTALL}\``);
  const installed = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  const pinned = pinnedVersion(harness);
  if (installed !== pinned)
    throw new Error(
      `${CLI_PACKAGES[harness]} is ${installed}, evals/clis pins ${pinned}: run \`${INSTALL}\``,
    );
  return bin;
}
