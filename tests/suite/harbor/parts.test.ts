// The pure parts of a Harbor trial (rewards: reward.test.ts): --image-map, FROM lines and their mapping, the
// build context listing the cache hash covers, and the `tasks check` verdict and table.
import { expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinContext, judge, renderCheck } from "../../../lib/suite/harbor/check.ts";
import { contextListing, fromLines, mapDockerfile, parseImageMap } from "../../../lib/suite/harbor/image.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import "../../../lib/suite/harbor/trial.ts";
import { buildScorecard, renderMarkdown, type Trial } from "../../../lib/suite/scorecard/index.ts";
import { runTrial } from "../../../lib/suite/trial.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { trialOf } from "../_support.ts";

test("--image-map: REF=LOCAL pairs, the last one for a REF wins", () => {
  expect([
    ...parseImageMap(["ubuntu:24.04=proctor-base:x", "python:3.12=mirror/python:3.12", "ubuntu:24.04=b"]),
  ]).toEqual([
    ["ubuntu:24.04", "b"],
    ["python:3.12", "mirror/python:3.12"],
  ]);
});

test.each(["ubuntu", "=local", "ubuntu=", "a b=c"])("--image-map refuses %p", (v) => {
  expect(() => parseImageMap([v])).toThrow(
    `--image-map: expected REF=LOCAL (e.g. ubuntu:24.04=mirror/ubuntu:24.04), got "${v}"`,
  );
});

const MULTI = [
  "# build stage",
  "FROM --platform=linux/amd64 golang:1.22 AS build",
  "RUN go build",
  "from ubuntu:24.04",
  "COPY --from=build /x /x",
  "FROM build AS again",
  "FROM scratch",
  "ARG BASE=ubuntu:24.04",
  "FROM $BASE",
].join("\n");

test("FROM lines: flags skipped, stages named, any case", () => {
  expect(fromLines(MULTI)).toEqual([
    { line: 2, ref: "golang:1.22", stage: "build" },
    { line: 4, ref: "ubuntu:24.04" },
    { line: 6, ref: "build", stage: "again" },
    { line: 7, ref: "scratch" },
    { line: 9, ref: "$BASE" },
  ]);
});

test("mapDockerfile maps base images only (not stages, scratch or ARG refs) and lists what the build needs", () => {
  const { text, bases } = mapDockerfile(MULTI, new Map([["ubuntu:24.04", "proctor-base:abc"]]));
  expect({ lines: text.split("\n").filter((l) => /^from/i.test(l)), bases }).toEqual({
    lines: [
      "FROM --platform=linux/amd64 golang:1.22 AS build",
      "from proctor-base:abc",
      "FROM build AS again",
      "FROM scratch",
      "FROM $BASE",
    ],
    bases: [
      { line: 2, ref: "golang:1.22", stage: "build" },
      { line: 4, ref: "proctor-base:abc" },
    ],
  });
});

test("the context listing changes with a file's bytes and its exec bit, not with its mtime", () => {
  using tmp = tempDir("harbor-context");
  mkdirSync(join(tmp.path, "sub"));
  writeFileSync(join(tmp.path, "Dockerfile"), "FROM x\n");
  writeFileSync(join(tmp.path, "sub", "a.sh"), "echo a\n");
  const first = contextListing(tmp.path);
  writeFileSync(join(tmp.path, "sub", "a.sh"), "echo a\n");
  const same = contextListing(tmp.path);
  chmodSync(join(tmp.path, "sub", "a.sh"), 0o755);
  const exec = contextListing(tmp.path);
  writeFileSync(join(tmp.path, "sub", "a.sh"), "echo b\n");
  const bytes = contextListing(tmp.path);
  expect({
    paths: first.map((l) => l.split(" ").slice(0, 2).join(" ")),
    same: same === first || JSON.stringify(same) === JSON.stringify(first),
    exec: exec[1]!.split(" ")[1],
    changed: new Set([first[1], exec[1], bytes[1]]).size,
  }).toEqual({ paths: ["Dockerfile -", "sub/a.sh -"], same: true, exec: "x", changed: 3 });
});

const trial = (o: Partial<Trial>): Trial => trialOf("v", "t", { wallMs: 0, ...o });

test.each([
  { name: "sound", nop: trial({ reward: 0 }), oracle: trial({ pass: true, reward: 1 }), why: undefined },
  {
    name: "passes untouched",
    nop: trial({ pass: true, reward: 1 }),
    oracle: trial({ pass: true, reward: 1 }),
    why: "nop passed: the task passes untouched",
  },
  {
    name: "solution falls short",
    nop: trial({ reward: 0 }),
    oracle: trial({ reward: 0.5 }),
    why: "oracle did not pass (reward 0.5)",
  },
  {
    name: "cannot build",
    nop: trial({ error: "build: x", infra: "image" }),
    oracle: trial({ error: "build: x", infra: "image" }),
    why: "nop: build: x",
  },
  {
    name: "no solution",
    nop: trial({}),
    oracle: trial({ error: "oracle: Harbor task t has no solution/solve.sh", infra: "other" }),
    why: "oracle: oracle: Harbor task t has no solution/solve.sh",
  },
  {
    name: "oracle errs",
    nop: trial({}),
    oracle: trial({ error: "check: no reward" }),
    why: "oracle: check: no reward",
  },
])("tasks check: $name", ({ nop, oracle, why }) => {
  expect(judge("t", nop, oracle)).toEqual({
    task: "t",
    nop,
    oracle,
    ok: why === undefined,
    ...(why ? { why } : {}),
  });
});

test("tasks check prints a table and a count", () => {
  const rows = [
    judge("fix-add", trial({}), trial({ pass: true, reward: 1 })),
    judge(
      "missing-base",
      trial({ error: "build: gone", infra: "image" }),
      trial({ error: "build: gone", infra: "image" }),
    ),
  ];
  expect(renderCheck(rows)).toEqual(
    [
      "task          nop     oracle  status",
      "fix-add       fail    pass    ok",
      "missing-base  infra   infra   broken: nop: build: gone",
      "1 of 2 tasks ok, 1 broken",
      "",
    ].join("\n"),
  );
});

test("the scorecard keeps non-binary rewards as each variant's mean reward, and shows the column", () => {
  const t = (variant: string, task: string, reward: number | undefined, pass = false) =>
    trial({ variant, task, pass, ...(reward !== undefined ? { reward } : {}) });
  const trials = [t("a", "x", 0.5), t("a", "y", 1, true), t("b", "x", 0.25), t("b", "y", undefined)];
  const sc = buildScorecard("h", "a", ["a", "b"], trials, { seed: 1 });
  const none = buildScorecard("h", "a", ["a"], [t("a", "x", undefined)], { seed: 1 });
  const cells = (l: string) => l.split("|").map((c) => c.trim());
  const lines = renderMarkdown(sc).split("\n");
  const header = cells(lines.find((l) => l.startsWith("| Variant | Trials"))!);
  const col = header.indexOf("Mean reward");
  expect({
    meanReward: sc.variants.map((v) => [v.name, v.meanReward]),
    cells: lines.filter((l) => /^\| [ab] \|/.test(l)).map((l) => cells(l)[col]),
    withoutRewards: [none.variants[0]!.meanReward, renderMarkdown(none).includes("Mean reward")],
  }).toEqual({
    meanReward: [
      ["a", 0.75],
      ["b", 0.125],
    ],
    cells: ["0.750", "0.125"],
    withoutRewards: [undefined, false],
  });
});

test.each([
  {
    name: "oracle on a task without solution/solve.sh",
    harness: "oracle" as const,
    drop: "solution",
    local: false,
    error: "oracle: Harbor task t has no solution/solve.sh",
  },
  {
    name: "any agent under --local",
    harness: "nop" as const,
    drop: undefined,
    local: true,
    error: "start: Harbor tasks run under Docker only, not --local",
  },
])("a Harbor trial refuses $name before any container", async ({ harness, drop, local, error }) => {
  using tmp = tempDir("harbor-refuse");
  const dir = join(tmp.path, "t");
  cpSync(join(REPO_ROOT, "tests", "fixtures", "harbor", "fix-add"), dir, { recursive: true });
  if (drop) rmSync(join(dir, drop), { recursive: true });
  const task = loadHarborTask(dir);
  const unused = () => Promise.reject(new Error("no container may start"));
  const runner = {
    prepare: unused,
    runPhase: unused,
    dispose: unused,
    ...(local ? { layout: () => ({ work: "/w", home: "/h", stage: "/s" }) } : {}),
  };
  const t = await runTrial(
    { task, variant: { name: harness, harness }, repeat: 0 },
    builtinContext("r", runner, harness, "none"),
  );
  expect(t).toEqual(trial({ task: "t", variant: harness, error, infra: "other", version: 1 }));
});
