// Seeded generators of the inputs the HTML reports read, each checked against the real format's zod
// schema so a fixture can never drift from what the tools write: suite trials (and their scorecard
// via the real buildScorecard), a run-eval RunResult, a promotion run directory and a step scorecard.
// Same seed, same data. Used by tests/report/ and tests/bench/report.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RunResult } from "../../lib/hermetic/result.ts";
import { Provenance, SealedKey } from "../../lib/promotion/records.ts";
import { verdictStats } from "../../lib/promotion/verdict.ts";
import { buildStepScorecard, StepResult, type StepScorecard } from "../../lib/steps/scorecard.ts";
import { buildScorecard, type Scorecard, Trial } from "../../lib/suite/scorecard/index.ts";
import { prng } from "./cassette-gen.ts";

const TOPICS = ["login", "cache", "retry", "parser", "sync", "label", "token", "session", "mobile", "docs"];
const VERBS = ["fix", "add", "refactor", "test", "port", "trim"];

/** A suite of `tasks` x `variants` x `repeats` trials (control first), with a few infra failures. */
export function generateSuite(opts: {
  tasks: number;
  variants: readonly string[];
  repeats: number;
  seed?: number;
  infraRate?: number;
}): { scorecard: Scorecard; trials: Trial[] } {
  const rnd = prng(opts.seed ?? 7);
  const infraRate = opts.infraRate ?? 0.02;
  const tasks = Array.from(
    { length: opts.tasks },
    (_, i) => `${VERBS[i % VERBS.length]}-${TOPICS[Math.floor(i / VERBS.length) % TOPICS.length]}-${i}`,
  );
  const skill = opts.variants.map((_, i) => 0.45 + 0.12 * i);
  const trials: Trial[] = [];
  for (const task of tasks) {
    const hardness = rnd() * 0.5 - 0.25;
    opts.variants.forEach((variant, vi) => {
      for (let repeat = 0; repeat < opts.repeats; repeat++) {
        const infra = rnd() < infraRate;
        const pass = !infra && rnd() < Math.min(0.97, Math.max(0.03, skill[vi]! - hardness));
        const raw: Record<string, unknown> = {
          task,
          variant,
          repeat,
          pass,
          costUSD: Math.round((0.01 + rnd() * 0.05 * (1 + vi * 0.3)) * 1e6) / 1e6,
          turns: 3 + Math.floor(rnd() * 20),
          wallMs: Math.round(20_000 + rnd() * 90_000),
          tokens: 2_000 + Math.floor(rnd() * 40_000),
          toolErrors: rnd() < 0.2 ? 1 + Math.floor(rnd() * 3) : 0,
          version: 1,
          log: `trials/${variant}/${task}/${repeat}/agent.log`,
        };
        if (infra) {
          raw.infra = rnd() < 0.5 ? "start" : "image";
          raw.error = `container failed to ${raw.infra === "start" ? "start" : "pull <image>"} & exited 125`;
        } else if (!pass) raw.error = `check exited 1: expected "${task}" to pass`;
        trials.push(Trial.parse(raw));
      }
    });
  }
  const scorecard = buildScorecard("nightly <core>", opts.variants[0]!, opts.variants, trials, {
    iterations: 400,
  });
  return { scorecard, trials };
}

/** A run-eval result of `n` cases: mostly passing, one failing assertion, one refused case. */
export function generateRunResult(n = 6, seed = 3): RunResult {
  const rnd = prng(seed);
  const cases = Array.from({ length: n }, (_, i) => {
    const kind = i === 1 ? "fail" : i === 2 && n > 2 ? "error" : "pass";
    const total = 3 + Math.floor(rnd() * 8);
    const passed = kind === "fail" ? total - 1 : total;
    const name = `${TOPICS[i % TOPICS.length]}-case-${i}`;
    const ok = kind === "pass";
    return {
      name,
      caseDir: `evals/cases/${name}`,
      result: kind,
      exitCode: kind === "pass" ? 0 : kind === "fail" ? 1 : 2,
      stage: kind === "error" ? "refused" : "done",
      message: ok
        ? null
        : kind === "fail"
          ? `✗ assertion "issue <title> lints" failed: exit 1`
          : "✗ repo_scripts refused",
      assertions: kind === "error" ? null : { passed, total },
      durationMs: Math.round(300 + rnd() * 4000),
      subjectMs: kind === "error" ? null : Math.round(100 + rnd() * 2000),
      kept: null,
      grade:
        kind === "fail"
          ? {
              version: 1,
              name,
              caseDir: `evals/cases/${name}`,
              outDir: "/tmp/out",
              passed: false,
              counts: { passed, failed: 1 },
              assertions: [
                {
                  index: 2,
                  label: "issue <title> lints",
                  tool: "idd-lint",
                  ok: false,
                  want: 0,
                  got: 1,
                  reason: null,
                  output: ["✗ title: expected an imperative verb", "  at issue.md:1"],
                },
              ],
            }
          : null,
      sandbox:
        kind === "error"
          ? null
          : {
              version: 1,
              mechanism: "bwrap",
              namespaces: ["user", "mnt", "pid", "net", "ipc", "uts"],
              uid: 65534,
              interfaces: ["lo"],
              egress: {
                target: "127.0.0.1:41234 (host loopback)",
                blocked: true,
                detail: "bash: connect: Connection refused",
              },
              ok: true,
            },
      output: `◆ ${name}\n<script>alert(1)</script>\n${ok ? "✓ passed" : "✗ failed"}\n`,
    };
  });
  const count = (r: string) => cases.filter((c) => c.result === r).length;
  return RunResult.parse({
    version: 1,
    ok: count("pass") === n,
    exitCode: count("error") > 0 ? 2 : count("fail") > 0 ? 1 : 0,
    jobs: 2,
    mechanism: "bwrap",
    durationMs: cases.reduce((a, c) => a + c.durationMs, 0) / 2,
    counts: { passed: count("pass"), failed: count("fail"), errors: count("error") },
    cases,
  });
}

/** Writes a JSON file with a trailing newline, making its directory. */
export function writeJson(path: string, data: unknown): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

/** What a generated promotion run looks like. */
export interface PromotionRunSpec {
  /** The recorded verdict, or null for a run still waiting for its graders. */
  verdict: "promote" | "hold" | "reject" | "insufficient" | "invalid" | null;
  perArm?: number;
  /** Blind ids (by sorted position) that leaked after running. */
  leaked?: number[];
  /** Leave out what only our tool records (isolation, verdict stats), as the original writes it. */
  original?: boolean;
  seed?: number;
}

/** Writes provenance.json and sealed/key.json of a promotion run into `runDir`, schema-checked. */
export function writePromotionRun(
  runDir: string,
  spec: PromotionRunSpec,
): { provenance: Provenance; key: SealedKey } {
  const rnd = prng(spec.seed ?? 11);
  const perArm = spec.perArm ?? 4;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join("");
  const keyRaw: Record<string, unknown> = {};
  const bids = Array.from({ length: 2 * perArm }, () => hex(8)).sort();
  bids.forEach((bid, i) => {
    const leak = (spec.leaked ?? []).includes(i);
    keyRaw[bid] = {
      arm: i % 2 === 0 ? "baseline" : "candidate",
      index: Math.floor(i / 2) + 1,
      raw: `raw/${bid}`,
      exit: i === 2 ? "timeout" : 0,
      duration_s: Math.round(rnd() * 300_000) / 1000,
      checks_passed: i !== 2 && i !== 4,
      leak,
      leak_reasons: leak
        ? [`canary in run/home/agent-cache.txt`, "rubric criteria text in run/out/summary.md"]
        : [],
      skipped: i === 1 ? ["workspace/agent.fifo"] : [],
    };
  });
  const key = SealedKey.parse(keyRaw);
  const arm = (passed: number) => ({ passed, n: perArm, pass_rate: passed / perArm });
  const rates: Record<string, [number, number]> = {
    promote: [1, perArm],
    hold: [1, 1],
    reject: [perArm, 1],
    insufficient: [1, 2],
    invalid: [2, perArm],
  };
  const [b, c] = spec.verdict ? rates[spec.verdict]! : [0, 0];
  const verdict = spec.verdict
    ? {
        result: spec.verdict,
        baseline: arm(b),
        candidate: arm(c),
        pass_threshold: 1,
        min_pass_rate: 0.5,
        scores_sha256: hex(64),
        decided_at: "2026-11-30T04:00:00Z",
        ...(spec.original ? {} : { stats: verdictStats(arm(b), arm(c), 0.5) }),
      }
    : null;
  const provenance = Provenance.parse({
    schema: 1,
    kind: "idd-promotion-provenance",
    tool: "agent_eval",
    sha: hex(40),
    clean_tree: true,
    harness: [],
    task: {
      id: "demo-<task>",
      skill: "issue-creator",
      task_sha256: hex(64),
      rubric_sha256: hex(64),
      lock_path: "evals/promotion/lock.json",
      lock_sha256: hex(64),
    },
    arms: {
      baseline: { ref: "main", sha: hex(40), skills_tree: hex(40) },
      candidate: { ref: "feat/<x>", sha: hex(40), skills_tree: hex(40) },
    },
    agent: {
      declared: { model: "stub-model", cli: "stub-agent", cli_version: "1.0.0", tools: ["Bash"] },
      command: ["stub"],
      pass_env: [],
    },
    posture: {
      github: "gh_shim cassette replay; GH tokens stripped",
      network: spec.original
        ? "unrestricted (model API); not sandboxed"
        : "unrestricted (model API); agent sandboxed: run root, read-only system and its own CLI only",
    },
    ...(spec.original
      ? {}
      : {
          isolation: {
            mechanism: "bwrap",
            uid: 65534,
            network: "host network namespace (the model's API stays reachable, 127.0.0.1 included)",
            binds: {
              rw: ["<run root>"],
              ro: ["/opt/agent", "<gh shim>"],
              system: ["/usr", "/bin", "/lib*", "/etc (short list)"],
            },
            probe: {
              ok: true,
              uid: 65534,
              paths: {
                "/work/repo": "absent",
                "/work/repo/evals/promotion/private": "absent",
                "/root": "absent",
              },
            },
          },
        }),
    runs: {
      per_arm: perArm,
      timeout_s: 1800,
      min_runs: spec.verdict === "insufficient" ? perArm + 1 : 3,
      seed_supplied: false,
      seed_sha256: hex(64),
    },
    leakcheck: { pre: { held_out: "pass", staging: "pass" }, post_leaks: (spec.leaked ?? []).length },
    key_sha256: hex(64),
    executor: { user: "root", uid: 0, host: "ci-box" },
    written_at: "2026-11-30T03:00:00Z",
    artifacts: [{ path: "sealed/key.json", sha256: hex(64), bytes: 1234 }],
    verdict,
  });
  writeJson(join(runDir, "provenance.json"), provenance);
  writeJson(join(runDir, "sealed", "key.json"), key);
  return { provenance, key };
}

/** What a generated step fails with; `pass` steps pass. */
export type StepKind = "pass" | "error" | "invalid-call" | "premature-stop" | "diverged";

/** `n` graded steps over `sessions` sessions and their scorecard (the real buildStepScorecard). */
export function generateSteps(
  n = 48,
  sessions = 17,
  seed = 5,
): { scorecard: StepScorecard; kinds: Map<string, StepKind> } {
  const rnd = prng(seed);
  const kinds = new Map<string, StepKind>();
  const results = Array.from({ length: n }, (_, i) => {
    const x = rnd();
    const kind: StepKind =
      x < 0.7
        ? "pass"
        : x < 0.77
          ? "error"
          : x < 0.84
            ? "invalid-call"
            : x < 0.92
              ? "premature-stop"
              : "diverged";
    const id = `step-${String(i).padStart(3, "0")}`;
    kinds.set(id, kind);
    const ok = kind === "pass";
    return StepResult.parse({
      id,
      session: `s-${(i % sessions).toString(16).padStart(4, "0")}`,
      depth: Math.floor(rnd() * 30),
      protocol: (["anthropic", "bedrock", "responses", "gemini"] as const)[i % 4],
      pass: ok,
      sameTools: ok || kind === "invalid-call",
      sameCalls: ok && rnd() < 0.6,
      valid: kind !== "invalid-call" && kind !== "error",
      prematureStop: kind === "premature-stop" ? true : i % 4 === 3 ? null : false,
      problems: kind === "invalid-call" ? ['tool "Bash" is missing required argument "command"'] : [],
      tools: kind === "premature-stop" || kind === "error" ? [] : kind === "diverged" ? ["Read"] : ["Bash"],
      latencyMs: Math.round(300 + rnd() * 3000),
      ...(kind === "error" ? { error: "HTTP 529 <overloaded> from the gateway" } : {}),
    });
  });
  return {
    scorecard: buildStepScorecard("evals/steps/opus-5-5", "opus", results, { iterations: 400 }),
    kinds,
  };
}
