// Test support for the suite lane: a stub Driver (a real module, not a mock) whose "CLI" is a POSIX
// shell script chosen by the variant's model id and printing Claude Code's stream-json, parsed by the
// real Claude driver; a recording PhaseRunner wrapper; temp evals trees with tasks and suites; and the
// pass rates read back from a printed scorecard.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import type { PhaseResult, PhaseSpec, Workspace } from "../../lib/isolation/contract.ts";
import { localRunner } from "../../lib/isolation/local.ts";
import { DRIVERS, type Driver } from "../../lib/suite/agents/index.ts";
import type { Trial } from "../../lib/suite/scorecard/index.ts";
import type { Layout, SuiteRunner, TrialContext } from "../../lib/suite/trial.ts";
import { runCommand, type Script, type Step, text } from "../support/mock-model.ts";

/** The bug fix of the fixture task (evals/tasks/fix-add). */
export const FIX = "sed -i 's/\\$1 - \\$2/$1 + $2/' add.sh";

const result = (cost: number, turns: number, extra = "") =>
  `printf '%s\\n' '{"type":"result","subtype":"success","is_error":false,"total_cost_usd":${cost},"num_turns":${turns},"duration_ms":1000,"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":0}${extra}}'`;

/** What the stub agent does, by model id. */
export const STUB_MODELS: Record<string, string> = {
  fixer: `${FIX} && ${result(0.25, 4)}`,
  noop: result(0.05, 2),
  settings: `grep -qs '"fix": *true' "$HOME/stub-settings.json" || { echo 'settings missing' >&2; exit 1; }; ${FIX} && ${result(0.1, 3)}`,
  sleep: "exec sleep 30",
  crash: `${FIX}; echo 'it broke' >&2; exit 2`,
  garbage: "echo 'not json at all'",
  maxturns: `printf '%s\\n' '{"type":"result","subtype":"error_max_turns","is_error":true,"total_cost_usd":0.3,"num_turns":10}'`,
  leak: `echo "key is $PROCTOR_STUB_KEY" >&2; exit 1`,
  env: `env > agent-env.txt; ${result(0, 1)}`,
};

/** A Driver for harness "claude" whose CLI is the stub script of the variant's model. */
export function stubDriver(): Driver {
  return {
    harness: "claude",
    apiKeyEnvName: "PROCTOR_STUB_KEY",
    wire: "anthropic",
    command(input) {
      const script = STUB_MODELS[input.model ?? "noop"] ?? "exit 9";
      return {
        argv: ["sh", "-c", script, "stub-agent"],
        env: { HOME: input.home, STUB_MODEL_URL: input.modelBaseUrl },
        secretEnv: { [input.apiKeyEnvName]: input.apiKeyEnvName },
        files:
          input.settings === undefined
            ? []
            : [{ path: join(input.home, "stub-settings.json"), content: JSON.stringify(input.settings) }],
        dirs: [input.home],
      };
    },
    parse: DRIVERS.claude.parse,
  };
}

/** One recorded phase call: the spec as given (files' contents dropped). */
export interface Recorded {
  phase: PhaseSpec["phase"];
  argv: string[];
  commands?: string[][];
  secretEnvNames?: string[];
  env?: Record<string, string>;
  model?: PhaseSpec["model"];
}

/** Wraps `inner`, recording every phase and optionally replacing a phase's result. */
export function recording(
  inner: SuiteRunner,
  override: (spec: PhaseSpec) => PhaseResult | undefined = () => undefined,
): SuiteRunner & { calls: Recorded[] } {
  const calls: Recorded[] = [];
  return {
    calls,
    prepare: (runId, repoDir) => inner.prepare(runId, repoDir),
    dispose: (ws) => inner.dispose(ws),
    layout: (ws: Workspace): Layout => inner.layout!(ws),
    async runPhase(ws, spec) {
      calls.push({
        phase: spec.phase,
        argv: spec.argv,
        ...(spec.commands ? { commands: spec.commands } : {}),
        ...(spec.secretEnvNames ? { secretEnvNames: spec.secretEnvNames } : {}),
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.model ? { model: spec.model } : {}),
      });
      return override(spec) ?? inner.runPhase(ws, spec);
    },
  };
}

/** Writes an evals tree under `root`: tasks/<name>/{task.yaml,repo/...} and suites/<name>.yaml. */
export function evalsTree(root: string) {
  return {
    task(name: string, yaml: string, repo: Record<string, string> = {}): string {
      const dir = join(root, "tasks", name);
      mkdirSync(join(dir, "repo"), { recursive: true });
      writeFileSync(join(dir, "task.yaml"), yaml);
      for (const [f, body] of Object.entries(repo)) writeFileSync(join(dir, "repo", f), body);
      return dir;
    },
    suite(name: string, yaml: string): string {
      mkdirSync(join(root, "suites"), { recursive: true });
      const path = join(root, "suites", `${name}.yaml`);
      writeFileSync(path, yaml);
      return path;
    },
  };
}

/** The fixture task's repository (a copy of evals/tasks/fix-add/repo). */
export const ADD_REPO = {
  "add.sh": "#!/bin/sh\necho $(( $1 - $2 ))\n",
  "test.sh": '#!/bin/sh\nset -e\n[ "$(sh add.sh 2 3)" = 5 ]\n',
};

/** The mock model of the fixture suite: model "mock-fix" runs FIX through the CLI's shell tool, any other model only talks. */
export function fixtureScript(): Script {
  const fix = runCommand(FIX, "Fixed add.sh.");
  return (req, ctx) =>
    req.model === "mock-fix" ? (fix as Exclude<Script, Step[]>)(req, ctx) : text("I cannot fix it.");
}

/** "ok", or the ConfigError line `fn` throws with `root` shown as <T> (any other error propagates). */
export function configOutcome(fn: () => unknown, root: string): string {
  try {
    fn();
    return "ok";
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.replaceAll(root, "<T>");
  }
}

/** A finished trial of `variant` on `task`: repeat 0, not passed, nothing spent, 1 ms of wall; `over` on top. */
export function trialOf(variant: string, task: string, over: Partial<Trial> = {}): Trial {
  return {
    task,
    variant,
    repeat: 0,
    pass: false,
    costUSD: 0,
    turns: 0,
    wallMs: 1,
    tokens: 0,
    toolErrors: 0,
    ...over,
  };
}

/** A trial context over the LocalRunner and the stub driver (run "t1", no model reached); `over` on top. */
export function stubContext(over: Partial<TrialContext> = {}): TrialContext {
  return {
    runId: "t1",
    runner: localRunner(),
    driver: stubDriver(),
    image: "eval-claude:latest",
    repoDir: undefined,
    network: "none",
    passEnv: [],
    modelUrl: "http://127.0.0.1:9",
    agentModelUrl: "http://127.0.0.1:9",
    apiKeyEnvName: "PROCTOR_STUB_KEY",
    workDir: "/work",
    home: "/tmp/home",
    ...over,
  };
}

/** What a runner returns when a phase never ran: an infrastructure failure saying `message`. */
export function infraResult(message: string, durationMs = 0): PhaseResult {
  return {
    exitCode: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    durationMs,
    commandIndex: 0,
    infraError: message,
  };
}

/** `| name | trials | pass@1 (CI) | ...` rows of a Markdown scorecard's variant table: name -> [trials, pass@1]. */
export function passRates(markdown: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const m of markdown.matchAll(/^\| (\w+) \| (\d+) \| ([\d.]+%) \(/gm)) out[m[1]!] = [m[2]!, m[3]!];
  return out;
}
