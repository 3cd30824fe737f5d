// The one mock model server of the test suite, now shipped as lib/wire/mock/ (`proctor mock-model`
// serves it): this file keeps the import path and API every test already uses, and starts the
// shipped command itself for tests that use it as a user would.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./tools.ts";

export { type MockModel, type MockOptions, startMockModel } from "../../lib/wire/mock/server.ts";
export {
  type AuthKind,
  hang,
  httpError,
  type MockProtocol,
  type MockRequest,
  runCommand,
  type Script,
  type Step,
  type StepContext,
  shellCall,
  stall,
  text,
  toolCalls,
  toolLoop,
} from "../../lib/wire/mock/steps.ts";

/** Starts `proctor mock-model ARGS` as a user would; resolves with its URL (its first stdout line) and stop(). */
export async function serveMockCli(args: string[]) {
  const child = spawn(process.execPath, [join(REPO_ROOT, "scripts", "mock-model.ts"), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!);
    });
    child.on("exit", () => reject(new Error(`mock-model exited: ${stderr}`)));
  });
  return {
    url,
    /** SIGTERM, then the whole outcome. */
    async stop() {
      child.kill("SIGTERM");
      return { exitCode: await exited, stdout, stderr };
    },
  };
}
