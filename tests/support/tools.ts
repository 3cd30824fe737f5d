// One place that knows where the pinned tools are: Bun and Deno come from npm ci (node_modules/.bin),
// Node is the machine's. A missing tool fails the test with the command that installs it; nothing
// here ever skips.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { which } from "../../lib/core/fsx.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const NODE_BIN = join(ROOT, "node_modules", ".bin");

function need(path: string, install: string): string {
  if (!existsSync(path)) throw new Error(`Missing ${path}: run \`${install}\``);
  return path;
}

/** Absolute paths of the pinned executables the tests use. */
export const BIN = {
  get bun() {
    return need(join(NODE_BIN, "bun"), "npm ci");
  },
  get deno() {
    return need(join(NODE_BIN, "deno"), "npm ci");
  },
  get node() {
    return need(which("node", process.env.PATH) ?? "/usr/bin/node", "apt-get install -y nodejs");
  },
} as const;

/** The repository root. */
export const REPO_ROOT = ROOT;
