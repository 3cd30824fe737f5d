#!/usr/bin/env bun
// `npm run install-bin`: builds the host binary (scripts/build.ts) and links it as `proctor` into the
// user's bin folder (scripts/build/install.ts: --prefix DIR, $PREFIX, $XDG_BIN_HOME or ~/.local/bin),
// so every tool is `proctor <tool>`. Never shipped. Exit 0 done, 2 refused or a bad flag, 1 a failed build.
//   npm run install-bin                     build, then link
//   npm run install-bin -- --prefix DIR     link DIR/bin/proctor instead
//   npm run install-bin -- --no-build       link what dist/ holds (tests; after `npm run build`)
//   npm run install-bin -- --remove         remove the link (only when it is this checkout's)
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { messageOf, ToolError, UsageError } from "../lib/core/errors.ts";
import { isMain } from "../lib/core/runtime.ts";
import { binFolder, installLink, removeLink } from "./build/install.ts";
import { main as build } from "./build.ts";

const DIST_PROCTOR = join(import.meta.dirname, "..", "dist", "proctor");

/** Installs (or removes) the link; returns the exit code. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  try {
    const values = flags(argv);
    const folder = binFolder(env, values.prefix);
    if (values.remove) return report(removeLink(DIST_PROCTOR, folder).lines);
    if (!values["no-build"]) {
      const code = await build([]);
      if (code !== 0) return code;
    }
    if (!existsSync(DIST_PROCTOR))
      throw new UsageError(`Cannot install: no ${DIST_PROCTOR} (run npm run build)`);
    return report(installLink(DIST_PROCTOR, folder, env).lines);
  } catch (error) {
    process.stderr.write(`✗ ${messageOf(error)}\n`);
    return error instanceof ToolError ? error.exitCode : 2;
  }
}

function flags(argv: string[]): { prefix?: string; "no-build"?: boolean; remove?: boolean } {
  try {
    const options = {
      prefix: { type: "string" },
      "no-build": { type: "boolean" },
      remove: { type: "boolean" },
    } as const;
    return parseArgs({ args: argv, options, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${messageOf(error).split(".")[0]}: expected --prefix DIR, --no-build, --remove`);
  }
}

function report(lines: string[]): number {
  for (const line of lines) process.stderr.write(`${line}\n`);
  return 0;
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
