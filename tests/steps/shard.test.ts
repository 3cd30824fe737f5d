// eval-steps run --shard K/N and `eval-steps merge` against the mock model: 40 steps in 9 sessions of
// 1 to 8 steps (passing, stopping early, diverging, one call answered 400) replayed whole and as 4
// shards side by side. No session is split across shards; the merged scorecard JSON is the whole
// run's byte for byte once each step's latencyMs (a wall-clock reading) is set aside, and its text and
// HTML report are byte-identical. Then every refusal of merge.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ProcResult, run } from "../../lib/core/proc.ts";
import { mergeStepScorecards } from "../../lib/steps/merge.ts";
import { renderStepScorecard, StepScorecard } from "../../lib/steps/scorecard.ts";
import { httpError, type MockModel, startMockModel, text, toolCalls } from "../support/mock-model.ts";
import { moveLastUnit, refusal, shardEditor } from "../support/shard-parts.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { REQUESTS, session, stepCase, writeSuite } from "./_cases.ts";

const KEY = "sk-shard-Zx8Cv6Bn4Mq2";
const dir = tempDir("steps-shard");
const file = (name: string) => join(dir.path, name);
const PROTOCOLS = ["anthropic", "responses", "gemini"] as const;
const SIZES = [8, 1, 5, 3, 7, 2, 6, 4, 4]; // steps per session: 40 in all
let mock: MockModel;
let whole: { r: ProcResult; sc: StepScorecard };
const shards: Array<{ r: ProcResult; sc: StepScorecard; path: string }> = [];
let merged: { r: ProcResult; sc: StepScorecard };

const evalSteps = (args: string[]) =>
  run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), ...args], {
    env: { PATH: process.env.PATH ?? "", STEP_KEY: KEY },
  });

/** Step `i` of the suite, marked in its request so the mock can answer it on purpose. */
function writeSteps(): void {
  let i = 0;
  const cases = SIZES.flatMap((size, s) =>
    Array.from({ length: size }, (_, depth) => {
      const protocol = PROTOCOLS[i % PROTOCOLS.length] ?? "anthropic";
      const id = `step-${String(i++).padStart(2, "0")}`;
      const request = JSON.parse(
        JSON.stringify(REQUESTS[protocol]).replace("open a.ts", `open a.ts (${id})`),
      );
      return stepCase(protocol, {
        id,
        request,
        provenance: { ...stepCase(protocol).provenance, session: session(s + 1), depth },
      });
    }),
  );
  writeSuite(file("suite"), cases);
}

/** Every 5th step stops early, every 7th calls another tool, step 13 is answered 400. */
function answer(body: unknown) {
  const n = Number(/step-(\d\d)/.exec(JSON.stringify(body))?.[1]);
  if (n === 13) return httpError(400, { error: { message: "bad request" } });
  if (n % 5 === 2) return text("done");
  if (n % 7 === 4) return toolCalls([{ name: "Bash", args: { command: "ls" } }]);
  return toolCalls([{ name: "Read", args: { file_path: "a.ts" } }]);
}

beforeAll(async () => {
  mkdirSync(file("suite"));
  writeSteps();
  mock = await startMockModel({ script: (req) => answer(req.body) });
  const base = [
    "run",
    "--suite",
    file("suite"),
    "--model",
    "m",
    "--url",
    mock.url,
    "--key-env",
    "STEP_KEY",
    "--seed",
    "7",
  ];
  const [w, ...parts] = await Promise.all([
    evalSteps([...base, "--output", "json", "--report", file("whole.html")]),
    ...[0, 1, 2, 3].map((k) => evalSteps([...base, "--shard", `${k}/4`, "--scorecard", file(`s${k}.json`)])),
  ]);
  whole = { r: w as ProcResult, sc: StepScorecard.parse(JSON.parse((w as ProcResult).stdout)) };
  parts.forEach((r, k) => {
    const path = file(`s${k}.json`);
    shards.push({ r, path, sc: StepScorecard.parse(JSON.parse(readFileSync(path, "utf8"))) });
  });
  const r = await evalSteps([
    "merge",
    ...shards.map((s) => s.path).reverse(),
    "--scorecard",
    file("merged.json"),
    "--report",
    file("merged.html"),
  ]);
  merged = { r, sc: StepScorecard.parse(JSON.parse(readFileSync(file("merged.json"), "utf8"))) };
  return async () => {
    await mock.close();
    dir[Symbol.dispose]();
  };
}, 300_000);

const settle = (json: string) => json.replace(/"latencyMs": [0-9.e+-]+/g, '"latencyMs": 0');

describe("a step suite whole and as 4 shards", () => {
  test("sessions are never split and the shards are balanced within one session", () => {
    const home = new Map<string, Set<number>>();
    shards.forEach(({ sc }, k) => {
      for (const r of sc.results) home.set(r.session, (home.get(r.session) ?? new Set()).add(k));
    });
    const sizes = shards.map((s) => s.sc.cases);
    expect({
      split: [...home.entries()].filter(([, ks]) => ks.size > 1).map(([s]) => s),
      sessions: home.size,
      steps: sizes.reduce((a, b) => a + b, 0),
      spread: Math.max(...sizes) - Math.min(...sizes) <= Math.max(...SIZES),
      stamps: shards.map((s) => [s.sc.shard?.index, s.sc.shard?.count, s.sc.shard?.total]),
      exits: shards.map((s) => s.r.exitCode),
      text: shards.map((s, k) => s.r.stdout.split("\n")[0]?.endsWith(`  shard ${k}/4`)),
    }).toEqual({
      split: [],
      sessions: 9,
      steps: 40,
      spread: true,
      stamps: [0, 1, 2, 3].map((k) => [k, 4, 40]),
      exits: [0, 0, 0, 0],
      text: [true, true, true, true],
    });
  });

  test("merge gives the whole run's scorecard JSON, text and report, and its exit code", () => {
    expect({
      exit: [merged.r.exitCode, whole.r.exitCode],
      stderr: merged.r.stderr,
      json: settle(readFileSync(file("merged.json"), "utf8")),
      text: merged.r.stdout,
      report: readFileSync(file("merged.html"), "utf8"),
      carried: [merged.sc.errors, merged.sc.results.find((r) => r.id === "step-13")?.error !== undefined],
    }).toEqual({
      exit: [0, 0],
      stderr: "",
      json: settle(whole.r.stdout),
      text: renderStepScorecard(whole.sc),
      report: readFileSync(file("whole.html"), "utf8"),
      carried: [1, true],
    });
    expect(whole.sc.pass.rate).toBeLessThan(1); // failures and an error are in it: the rates are not trivial
  });
});

const { edited, asIs } = shardEditor("scorecard", () => shards.map((s) => s.sc));

describe("merge refuses what is not one whole suite run (exit 2, one line)", () => {
  test.each<{ name: string; parts: () => ReturnType<typeof asIs>[]; message: string }>([
    {
      name: "a shard missing",
      parts: () => [asIs(0), asIs(2), asIs(3)],
      message: "Cannot merge: shard 1/4 is missing (given: s0.json, s2.json, s3.json)",
    },
    {
      name: "a shard twice",
      parts: () => [asIs(0), asIs(1), asIs(2), asIs(3), asIs(0)],
      message: 'Cannot merge "s0.json": shard 0/4 given twice (also "s0.json")',
    },
    {
      name: "another seed",
      parts: () => [asIs(0), edited(1, (sc) => Object.assign(sc, { seed: 8 }))],
      message: 'Cannot merge "s1.json": seed 8 differs from "s0.json"\'s 7',
    },
    {
      name: "another model",
      parts: () => [asIs(0), edited(1, (sc) => Object.assign(sc, { model: "other" }))],
      message: 'Cannot merge "s1.json": model "other" differs from "s0.json"\'s "m"',
    },
    {
      name: "another suite",
      parts: () => [
        asIs(0),
        edited(1, (sc) => Object.assign(sc.shard ?? {}, { set: `sha256:${"1".repeat(64)}` })),
      ],
      message: 'Cannot merge "s1.json": another case set than "s0.json" (shard.set differs)',
    },
    {
      name: "K out of range",
      parts: () => [edited(0, (sc) => Object.assign(sc.shard ?? {}, { index: 9 }))],
      message: 'Cannot merge "s0.json": shard 9/4 is out of range (K must be below N)',
    },
    {
      name: "N mismatch",
      parts: () => [asIs(0), edited(1, (sc) => Object.assign(sc.shard ?? {}, { count: 3 }))],
      message: 'Cannot merge "s1.json": shard 1/3, but "s0.json" is of 4',
    },
    {
      name: "an unsharded scorecard",
      parts: () => [asIs(0), { file: "whole.json", scorecard: whole.sc }],
      message: 'Cannot merge "whole.json": not a shard (no shard field: was it run with --shard K/N?)',
    },
    {
      name: "results edited out of step with the shard field",
      parts: () => [edited(0, (sc) => sc.results.reverse()), asIs(1), asIs(2), asIs(3)],
      message: 'Cannot merge "s0.json": its results are not the steps its shard field lists',
    },
    {
      name: "a session moved to another shard",
      parts: () => {
        const [from, to] = [asIs(0), asIs(1)];
        moveLastUnit(from.scorecard, to.scorecard, (sc) => sc.results);
        return [from, to, asIs(2), asIs(3)];
      },
      message: "moved",
    },
  ])("$name", ({ parts, message }) => {
    const got = refusal(() => mergeStepScorecards(parts()));
    const moved = shards[0]?.sc.shard?.ids.at(-1);
    const want =
      message === "moved" ? `Cannot merge "s1.json": unit "${moved}" is not dealt to shard 1/4` : message;
    expect(got).toEqual({ exit: 2, message: want });
  });

  test.each([
    {
      name: "no files",
      argv: [],
      exit: 2,
      stderr: "✗ eval-steps merge needs the shards' scorecards: eval-steps merge FILE...\n",
    },
    {
      name: "not a scorecard (exit 3)",
      argv: ["obj"],
      exit: 3,
      stderr: '✗ Cannot load scorecard "OBJ": Invalid input: expected 1 at version\n',
    },
    {
      name: "bad --output",
      argv: ["obj", "--output", "yaml"],
      exit: 2,
      stderr: '✗ --output must be text or json, got "yaml"\n',
    },
  ])("the command: $name", async ({ argv, exit, stderr }) => {
    writeFileSync(file("obj.json"), '{"version": 2}');
    const r = await evalSteps(["merge", ...argv.map((a) => (a === "obj" ? file("obj.json") : a))]);
    expect({ exit: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      exit,
      stdout: "",
      stderr: stderr.replace("OBJ", file("obj.json")),
    });
  });
});
