// Selection on generated sessions with known answers: for every protocol and several seeds, each
// pair's reasons, depth, expected action source and tools are the generator's; auxiliary requests,
// retries and truncated arms are never cases; sample is seeded, per depth bucket, and reproducible.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { harvest } from "../../lib/steps/harvest.ts";
import { appendHistory, type HistoryEntry } from "../../lib/steps/history.ts";
import { drawSample, judgeStep, type StepChoice } from "../../lib/steps/select.ts";
import { depthBucket } from "../../lib/steps/session.ts";
import { generateSessions, type PairTruth, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";

function store(dir: string, seed: number, protocol?: "anthropic" | "bedrock" | "responses" | "gemini") {
  const specs = generateSessions({ seed, sessions: 12, ...(protocol ? { protocols: [protocol] } : {}) });
  const all = specs.map(sessionPairs);
  const pairs = join(dir, "pairs.jsonl");
  // Rows out of time order: the harvest orders each session itself.
  writePairStore(pairs, all.flatMap((x) => x.pairs).reverse());
  const key = join(dir, "pair.key");
  writeFileSync(key, randomBytes(32).toString("base64"));
  return { pairs, key, truth: all.flatMap((x) => x.truth) };
}

function expectedCases(truth: PairTruth[]) {
  return truth
    .filter((t) => t.harvestable && !t.skipped && t.reasons.length > 0)
    .map((t) => ({
      id: t.id,
      depth: t.depth,
      reasons: t.reasons,
      expectedFrom: t.expectedFrom,
      expectedTools: t.expectedTools,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe("rule-based reasons match the known answers", () => {
  const rows = (["anthropic", "bedrock", "responses", "gemini"] as const).flatMap((protocol) =>
    [1, 2, 3].map((seed) => ({ protocol, seed })),
  );
  test.each(rows)("$protocol seed $seed", async ({ protocol, seed }) => {
    using dir = tempDir("select");
    const s = store(dir.path, seed, protocol);
    const r = await harvest({ pairs: s.pairs, pairKeyFiles: [s.key], experiment: "exp", dryRun: true });
    const got = r.cases
      .map((c) => ({
        id: c.id,
        depth: c.provenance.depth,
        reasons: c.reasons,
        expectedFrom: c.expectedFrom,
        expectedTools: c.expectedTools,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
    expect(got).toEqual(expectedCases(s.truth) as typeof got);
    expect(r.skippedInvalidExpected).toEqual(s.truth.filter((t) => t.harvestable && t.skipped).length);
    expect(r.steps).toEqual(s.truth.filter((t) => t.depth !== undefined).length);
    expect(r.written).toEqual([]);
  });
});

test("another experiment's pairs are not harvested", async () => {
  using dir = tempDir("select");
  const s = store(dir.path, 4);
  const r = await harvest({ pairs: s.pairs, pairKeyFiles: [s.key], experiment: "other", dryRun: true });
  expect({ cases: r.cases, steps: r.steps, rows: r.rows }).toEqual({
    cases: [],
    steps: 0,
    rows: s.truth.length,
  });
});

describe("judgeStep", () => {
  const tools = [{ name: "Read", required: ["path"] }];
  const read = { name: "Read", args: { path: "a" } };
  const o = {
    reasons: ["diverged", "invalid-call", "premature-stop", "judge-loss"] as const,
    perDepth: 5,
    judgeLossThreshold: 0.2,
    seed: 1,
  };
  test.each([
    { name: "all agree", view: { production: [read], control: [read], candidate: [read] }, reasons: [] },
    {
      name: "candidate stops",
      view: { production: [read], control: [read], candidate: [] },
      reasons: ["diverged", "premature-stop"],
    },
    {
      name: "production unknown, candidate stops",
      view: { control: [read], candidate: [] },
      reasons: ["diverged"],
    },
    {
      name: "judge loss over threshold",
      view: { production: [read], control: [read], candidate: [read], judgeLoss: 0.3 },
      reasons: ["judge-loss"],
    },
    {
      name: "judge loss at threshold",
      view: { production: [read], control: [read], candidate: [read], judgeLoss: 0.2 },
      reasons: [],
    },
    {
      name: "missing arg",
      view: { production: [read], control: [read], candidate: [{ name: "Read", args: {} }] },
      reasons: ["invalid-call"],
    },
  ])("$name", ({ view, reasons }) => {
    const c = judgeStep({ pairId: "p", depth: 1, tools, ...view }, { ...o, reasons: [...o.reasons] });
    expect(c?.reasons).toEqual(reasons as never);
  });
  test("an invalid expected action is skipped", () => {
    expect(
      judgeStep(
        { pairId: "p", depth: 0, tools, control: [{ name: "Nope", args: {} }], candidate: [] },
        { ...o, reasons: [...o.reasons] },
      ),
    ).toBeUndefined();
  });
});

describe("sample", () => {
  const choices = (): StepChoice[] =>
    Array.from({ length: 60 }, (_, i) => ({
      view: { pairId: `p${i}`, depth: i % 30, tools: [], control: [], candidate: [] },
      expected: [],
      expectedFrom: "control" as const,
      reasons: [],
    }));
  const picked = (seed: number, per: number) => {
    const cs = choices();
    drawSample(cs.slice().reverse(), per, seed);
    return cs.filter((c) => c.reasons.includes("sample")).map((c) => c.view.pairId);
  };
  test("per-depth picks per bucket, capped by the bucket's size", () => {
    const cs = choices();
    drawSample(cs, 5, 1);
    const per = new Map<string, number>();
    for (const c of cs)
      if (c.reasons.length) per.set(depthBucket(c.view.depth), (per.get(depthBucket(c.view.depth)) ?? 0) + 1);
    expect(Object.fromEntries(per)).toEqual({ "0": 2, "1-4": 5, "5-19": 5, "20+": 5 });
  });
  test("same seed, same picks whatever the input order; another seed, other picks", () => {
    expect(picked(7, 3)).toEqual(picked(7, 3));
    expect(picked(7, 3)).not.toEqual(picked(8, 3));
  });
});

test("judge-loss reads the judge history of the experiment", async () => {
  using dir = tempDir("select");
  const s = store(dir.path, 5);
  const target = s.truth.find((t) => t.harvestable && !t.skipped && t.reasons.length === 0) as PairTruth;
  const history = join(dir.path, "history.jsonl");
  const entry = (id: string, experiment: string, control: number, candidate: number): HistoryEntry => ({
    version: 1,
    id,
    experiment,
    time: "2026-11-30T00:00:00Z",
    judge: { model: "j", rubric: `sha256:${"0".repeat(64)}` },
    control: { score: control },
    candidate: { score: candidate },
    delta: candidate - control,
    order: "control-first",
    seed: 1,
  });
  await appendHistory(history, [entry(target.id, "exp", 0.9, 0.5), entry(target.id, "other", 0.9, 0.1)]);
  const r = await harvest({
    pairs: s.pairs,
    pairKeyFiles: [s.key],
    experiment: "exp",
    history,
    select: ["judge-loss"],
    dryRun: true,
  });
  expect(r.cases.map((c) => [c.id, c.reasons])).toEqual([[target.id, ["judge-loss"]]]);
  const strict = await harvest({
    pairs: s.pairs,
    pairKeyFiles: [s.key],
    experiment: "exp",
    history,
    select: ["judge-loss"],
    judgeLoss: 0.5,
    dryRun: true,
  });
  expect(strict.cases).toEqual([]);
});

test("sample through harvest: seeded, reproducible, at most per-depth per bucket", async () => {
  using dir = tempDir("select");
  const s = store(dir.path, 6);
  const run = (seed: number) =>
    harvest({
      pairs: s.pairs,
      pairKeyFiles: [s.key],
      experiment: "exp",
      select: ["sample"],
      perDepth: 2,
      seed,
      dryRun: true,
    });
  const a = await run(11);
  expect((await run(11)).cases).toEqual(a.cases);
  const buckets = new Map<string, number>();
  for (const c of a.cases)
    buckets.set(depthBucket(c.provenance.depth), (buckets.get(depthBucket(c.provenance.depth)) ?? 0) + 1);
  expect([...buckets.values()].every((n) => n <= 2)).toBe(true);
  expect(a.cases.length).toEqual(8);
});
