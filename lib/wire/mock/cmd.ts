// `proctor mock-model`: the mock model server as a tool. It loads a replies file (script-file.ts),
// serves Anthropic, OpenAI Responses, Gemini and Bedrock on 127.0.0.1 (port 0 unless --port), prints
// its URL as the one line on stdout, and stops cleanly on SIGINT or SIGTERM (exit 0). A bad flag or
// replies file is one line and exit 2 before anything listens; a port in use is exit 1.
import type { ArgsDef } from "citty";
import { ToolError, UsageError } from "../../core/errors.ts";
import { numberFlag } from "../../core/flags.ts";
import { createLogger } from "../../core/log.ts";
import { loadMockScript, scriptOf } from "./script-file.ts";
import { MAX_BODY_BYTES, type MockModel, startMockModel } from "./server.ts";

/** The flags of `proctor mock-model`. */
export const MOCK_ARGS = {
  replies: {
    type: "string",
    description: "the replies file (JSON or YAML, version 1): what the model answers",
  },
  port: { type: "string", description: "the port on 127.0.0.1 (default 0: any free port)" },
  log: {
    type: "string",
    description: "append one JSON line per request to FILE (the auth kind, never a key)",
  },
  "max-body-bytes": {
    type: "string",
    description: "refuse a request body over N bytes with 413 (default 33554432: 32 MiB)",
  },
} as const satisfies ArgsDef;

/** The flags as citty hands them over. */
export interface MockFlags {
  replies?: string;
  port?: string;
  log?: string;
  "max-body-bytes"?: string;
}

/** Resolves on the first SIGINT or SIGTERM (the listeners are removed again). */
function stopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** Serves until a signal; 0 after a clean stop. */
export async function serveMockModel(
  flags: MockFlags,
  until: () => Promise<unknown> = stopped,
): Promise<number> {
  if (!flags.replies)
    throw new UsageError("missing --replies FILE: proctor mock-model --replies replies.yaml");
  const port = numberFlag("--port", flags.port, { min: 0, max: 65535, fallback: 0 });
  const maxBodyBytes = numberFlag("--max-body-bytes", flags["max-body-bytes"], {
    min: 1,
    fallback: MAX_BODY_BYTES,
  });
  const file = loadMockScript(flags.replies);
  let mock: MockModel;
  try {
    mock = await startMockModel({
      script: scriptOf(file),
      port,
      maxBodyBytes,
      ...(file.usage ? { usage: file.usage } : {}),
      ...(flags.log ? { logFile: flags.log } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolError(`Cannot serve on 127.0.0.1:${port}: ${code ?? (error as Error).message}`, 1, {
      cause: error,
    });
  }
  const log = createLogger("mock-model");
  const stop = until();
  process.stdout.write(`${mock.url}\n`);
  log.info(`serving ${file.conversations.length} conversation(s) at ${mock.url}; SIGINT or SIGTERM stops it`);
  await stop;
  await mock.close();
  log.info(`stopped after ${mock.requests.length} request(s)`);
  return 0;
}
