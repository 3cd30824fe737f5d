// Seeded generators of the inputs the HTML reports read, each checked against the real format's zod
// schema so a fixture can never drift from what the tools write: suite trials (and their scorecard
// via the real buildScorecard), a run-eval RunResult, a promotion run directory and a step scorecard.
// Same seed, same data. Used by tests/report/ and tests/bench/report.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RunResult } from "../../lib/runner/result.ts";
import { buildScorecard, type Scorecard, Trial } from "../../lib/scorecard.ts";
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
      grade: null,
      sandbox:
        kind === "error"
          ? null
          : {
              version: 1,
              mechanism: "bwrap",
              namespaces: ["user", "mnt", "pid", "net", "ipc", "uts"],
              uid: 65534,
              interfaces: ["lo"],
              egress: { target: "1.1.1.1:443", blocked: true, detail: "connect: ENETUNREACH" },
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
