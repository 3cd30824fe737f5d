#!/usr/bin/env bun
// mock-model: a scripted model server on 127.0.0.1 speaking Anthropic, OpenAI Responses, Gemini and
// Bedrock, for running agents and suites offline. Flags and body: lib/wire/mock/cmd.ts.
import { defineCommand } from "citty";
import { runTool } from "../lib/core/cli.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { isMain } from "../lib/core/runtime.ts";
import { VERSION } from "../lib/core/version.ts";
import { MOCK_ARGS, serveMockModel } from "../lib/wire/mock/cmd.ts";

export const command = defineCommand({
  meta: {
    name: "mock-model",
    version: VERSION,
    description:
      "a scripted model server on 127.0.0.1 (Anthropic, Responses, Gemini, Bedrock); prints its URL",
  },
  args: MOCK_ARGS,
  run: ({ args }) => serveMockModel(args),
});

/** Runs mock-model and returns its exit code: 0 stopped by a signal, 2 bad flags or replies file, 1 cannot serve. */
export function main(rawArgs: string[]): Promise<number> {
  return runTool(command, rawArgs, {
    usageExit: 2,
    remap: (e) => (e instanceof ConfigError ? 2 : undefined),
  });
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
