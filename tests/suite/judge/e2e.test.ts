// The judge through `agent-eval suite --local` as a user runs it: the built-in nop (leaves the bug)
// and oracle (runs the task's solution) judged by the mock model against the original's rubric, the
// mock scoring correctness by whether the change it is shown adds. Proves the wiring end to end: the
// key read from the variable the suite names and seen only in the auth header (never in stdout,
// stderr, the trials file or a log), per-variant judgeScore and gradeErrors, and a malformed judge
// reply counted as a grade error (never a pass) in another wire.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { loadRubric } from "../../../lib/suite/judge/config.ts";
import { shownOrder } from "../../../lib/suite/judge/prompt.ts";
import { type MockModel, type Script, startMockModel, text } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const TASKS = join(REPO_ROOT, "tests", "fixtures", "judge", "evals", "tasks");
const KEY = "sk-e2e-judge-5c1d9e7a3b";

/** A judge that gives correctness 1 only when the change it is shown adds. */
const fair: Script = (req) => {
  const shown = JSON.stringify(req.body);
  const correctness = shown.includes("$1 + $2") ? 1 : 0;
  return text(JSON.stringify({ scores: { correctness, minimality: 1 }, rationale: "read the change" }));
};

/** Every file under `dir`, as text. */
function everything(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
}

async function suite(mock: MockModel, wire: string, dir: string) {
  const path = join(dir, "s.yaml");
  writeFileSync(
    path,
    `name: judged\ntasks: [fix]\nseed: 7\nrepeats: 2\njudge: {url: "${mock.url}", wire: ${wire}, model: judge-1, api_key_env: PROCTOR_E2E_JUDGE_KEY}\nvariants:\n  - {name: nop, harness: nop}\n  - {name: oracle, harness: oracle}\n`,
  );
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PROCTOR_E2E_JUDGE_KEY: KEY,
  };
  delete env.CI;
  const args = [
    "suite",
    path,
    "--local",
    "--tasks",
    TASKS,
    "--output",
    "json",
    "--trials",
    join(dir, "t.jsonl"),
  ];
  const r = await run([process.execPath, ENTRY, ...args], { cwd: dir, env });
  return { r, out: JSON.parse(r.stdout || "{}") };
}

type Out = {
  variants: Array<{ name: string; judgeScore?: number; gradeErrors?: number }>;
  trials: Array<{ variant: string; repeat: number; pass: boolean; grades?: Array<Record<string, unknown>> }>;
};
const summary = (out: Out) => ({
  variants: out.variants.map((v) => ({ name: v.name, judgeScore: v.judgeScore, gradeErrors: v.gradeErrors })),
  trials: out.trials.map((t) => ({
    variant: t.variant,
    pass: t.pass,
    grades: t.grades?.map((g) => ({
      pass: g.pass,
      score: g.score,
      rubric: g.rubric,
      error: g.error,
      shown: g.shown,
    })),
  })),
});

/** The order each trial's judge grade records: the seeded one the judge was shown (nop changes nothing). */
const RUBRIC = loadRubric(join(TASKS, "..", "rubrics", "quality.yaml"));
const orders = (out: Out) => ({
  recorded: out.trials.map((t) => t.grades?.[0]?.order),
  seeded: out.trials.map(
    (t) =>
      shownOrder(RUBRIC, t.variant === "oracle" ? [{ path: "add.sh", content: "" }] : [], {
        seed: 7,
        task: "fix",
        repeat: t.repeat,
      }).order,
  ),
});

describe("agent-eval suite --local with a judge grader", () => {
  test("anthropic-messages: nop judged 1/3 and failing, oracle judged 1 and passing; the key only in the header", async () => {
    await using mock = await startMockModel({ script: [] });
    mock.scenario(KEY, fair, "keyed");
    using dir = tempDir("judge-e2e");
    const { r, out } = await suite(mock, "anthropic-messages", dir.path);
    // What each judge was shown, recorded on the trial: nop changed nothing, the oracle add.sh.
    const judged = (variant: string, pass: boolean, score: number) => ({
      variant,
      pass,
      grades: [
        {
          pass,
          score,
          rubric: "code-quality@1",
          error: undefined,
          shown: { changed: +pass, files: +pass, truncated: [], omitted: 0, omittedPaths: [] },
        },
      ],
    });
    expect({ exitCode: r.exitCode, ...summary(out as Out) }).toEqual({
      exitCode: 0,
      variants: [
        { name: "nop", judgeScore: 1 / 3, gradeErrors: 0 },
        { name: "oracle", judgeScore: 1, gradeErrors: 0 },
      ],
      trials: [
        judged("nop", false, 1 / 3),
        judged("nop", false, 1 / 3),
        judged("oracle", true, 1),
        judged("oracle", true, 1),
      ],
    });
    expect(mock.requests.map((q) => [q.auth, q.scenario, q.url])).toEqual(
      Array(4).fill(["x-api-key", "keyed", "/v1/messages"]),
    );
    const { recorded, seeded } = orders(out as Out);
    expect(recorded).toEqual(seeded);
    expect(new Set(recorded.map((o) => JSON.stringify(o))).size).toBeGreaterThan(1);
    expect([r.stdout, r.stderr, everything(dir.path)].join("\n")).not.toContain(KEY);
  });

  test("openai-responses, a judge answering in a code fence: every judge grade an error, nothing passes", async () => {
    await using mock = await startMockModel({ script: [] });
    mock.scenario(KEY, () => text('```json\n{"scores": {}, "rationale": "x"}\n```'), "keyed");
    using dir = tempDir("judge-e2e");
    const { r, out } = await suite(mock, "openai-responses", dir.path);
    const s = summary(out as Out);
    expect({
      exitCode: r.exitCode,
      variants: s.variants,
      passes: s.trials.map((t) => t.pass),
      errors: s.trials.map((t) => t.grades?.[0]?.error),
      auth: [...new Set(mock.requests.map((q) => q.auth))],
    }).toEqual({
      exitCode: 0,
      variants: [
        { name: "nop", judgeScore: undefined, gradeErrors: 2 },
        { name: "oracle", judgeScore: undefined, gradeErrors: 2 },
      ],
      passes: [false, false, false, false],
      errors: Array(4).fill(
        'judge reply failed schema validation: expected one JSON object, got "```json\\n{\\"scores\\": {"',
      ),
      auth: ["bearer"],
    });
    expect([r.stdout, r.stderr, everything(dir.path)].join("\n")).not.toContain(KEY);
  });
});
