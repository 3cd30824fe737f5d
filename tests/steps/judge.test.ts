import { expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { loadHistory } from "../../lib/steps/history.ts";
import { clip, parseVerdict } from "../../lib/steps/judge.ts";
import { judgePairs, orderOf } from "../../lib/steps/judge-pairs.ts";
import { parsePairKey, seal } from "../../lib/steps/pairs/index.ts";
import { runStepSuite } from "../../lib/steps/replay-run.ts";
import { overrideFlags } from "../support/flags.ts";
import { type MockRequest, startMockModel, text, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { stepCase, writeSuite } from "./_cases.ts";

const KEY = "sk-judge-Hh3Jj5Kk7Ll9Zz1";
const NOW = () => new Date("2026-11-30T04:00:00.000Z");
const RUBRIC = "Prefer the answer that reads the file before editing it.";

function side(response: unknown, over: Record<string, unknown> = {}) {
  return {
    target: { upstream: "u", model: "m" },
    status: 200,
    latency_ms: 10,
    input_tokens: 5,
    output_tokens: 5,
    response,
    ...over,
  };
}

function pair(id: string, over: Record<string, unknown> = {}) {
  return {
    id,
    time: "2026-11-30T01:00:00Z",
    experiment: "exp",
    session_id: "s1",
    protocol: "anthropic",
    request: { model: "m", messages: [{ role: "user", content: `question ${id}` }] },
    control: side({ content: [{ type: "text", text: `control answer ${id}` }] }),
    candidate: side({ content: [{ type: "text", text: `candidate answer ${id}` }] }),
    ...over,
  };
}

/** A judge that scores whichever answer says "control" 0.8 and the other 0.3. */
function fairJudge(req: MockRequest) {
  const prompt = String((req.body as { messages: Array<{ content: string }> }).messages[0]?.content);
  const a = prompt.slice(prompt.indexOf("## Answer A"), prompt.indexOf("## Answer B"));
  const [sa, sb] = a.includes("control answer") ? [0.8, 0.3] : [0.3, 0.8];
  return text(`{"a": ${sa}, "b": ${sb}, "reason": "the control reads first"}`);
}

function setup(dir: string, rows: unknown[]) {
  const pairs = join(dir, "pairs.jsonl");
  writeFileSync(pairs, rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r))).join("\n"));
  writeFileSync(join(dir, "rubric.md"), RUBRIC);
  return { pairs, history: join(dir, "history.jsonl"), rubric: join(dir, "rubric.md") };
}

test("judges usable pairs into the history, maps the blind order back, skips them next time", async () => {
  await using mock = await startMockModel({ script: fairJudge });
  using dir = tempDir("steps-judge");
  const rows = [
    pair("p1"),
    pair("p2"),
    pair("p3", { candidate: side(undefined, { status: 500, error: "upstream 500" }) }),
    pair("p4", { experiment: "other" }),
  ];
  const f = setup(dir.path, rows);
  const route = { protocol: "anthropic" as const, url: mock.url, model: "judge-1", key: KEY };
  const opts = { ...f, experiment: "exp", route, now: NOW, seed: 3 };
  expect(await judgePairs(opts)).toEqual({
    experiment: "exp",
    eligible: 2,
    alreadyGraded: 0,
    unusable: 1,
    selected: 2,
    graded: 2,
    errors: [],
  });
  const digest = `sha256:${createHash("sha256").update(RUBRIC).digest("hex")}`;
  const history = loadHistory(f.history).sort((a, b) => (a.id < b.id ? -1 : 1));
  expect(history).toEqual(
    ["p1", "p2"].map((id) => ({
      version: 1,
      id,
      experiment: "exp",
      time: "2026-11-30T04:00:00.000Z",
      judge: { model: "judge-1", rubric: digest },
      control: { score: 0.8, reason: "the control reads first" },
      candidate: { score: 0.3 },
      delta: 0.3 - 0.8,
      order: orderOf(3, id),
      seed: 3,
    })),
  );
  const prompt = String(
    (mock.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]?.content,
  );
  expect(prompt).toContain(RUBRIC);
  expect(mock.requests.map((r) => ({ url: r.url, auth: r.auth, model: r.model }))).toEqual([
    { url: "/v1/messages", auth: "x-api-key", model: "judge-1" },
    { url: "/v1/messages", auth: "x-api-key", model: "judge-1" },
  ]);
  // Second run: everything already graded, no judge call.
  expect(await judgePairs(opts)).toEqual({
    experiment: "exp",
    eligible: 0,
    alreadyGraded: 2,
    unusable: 1,
    selected: 0,
    graded: 0,
    errors: [],
  });
  expect(mock.requests.length).toBe(2);
  expect(readFileSync(f.history, "utf8")).not.toContain(KEY);
});

test("the seeded sample: same seed, same pairs; --sample 0 takes all", async () => {
  await using mock = await startMockModel({ script: fairJudge });
  const route = { protocol: "anthropic" as const, url: mock.url, model: "j", key: KEY };
  const picked = async (seed: number, sample: number) => {
    using dir = tempDir("steps-judge");
    const f = setup(
      dir.path,
      ["a", "b", "c", "d", "e", "f"].map((id) => pair(id)),
    );
    await judgePairs({ ...f, experiment: "exp", route, seed, sample, now: NOW });
    return loadHistory(f.history)
      .map((h) => h.id)
      .sort();
  };
  const first = await picked(5, 2);
  expect(first.length).toBe(2);
  expect(await picked(5, 2)).toEqual(first);
  expect(await picked(5, 0)).toEqual(["a", "b", "c", "d", "e", "f"]);
});

test("sealed rows are read with the key file", async () => {
  await using mock = await startMockModel({ script: fairJudge });
  using dir = tempDir("steps-judge");
  const keyText = randomBytes(32).toString("base64");
  const key = parsePairKey(keyText, "k");
  const p = pair("sealed-1");
  const row = { id: p.id, time: p.time, kid: key.kid, enc: seal(JSON.stringify(p), p.id, key) };
  const f = setup(dir.path, [row]);
  writeFileSync(join(dir.path, "pair.key"), `${keyText}\n`);
  const r = await judgePairs({
    ...f,
    pairKeyFiles: [join(dir.path, "pair.key")],
    experiment: "exp",
    route: { protocol: "anthropic", url: mock.url, model: "j", key: KEY },
    now: NOW,
  });
  expect(r.graded).toBe(1);
});

test("a judge that does not answer with scores: the pair stays ungraded", async () => {
  await using mock = await startMockModel({ script: () => text("I think A is better.") });
  using dir = tempDir("steps-judge");
  const f = setup(dir.path, [pair("p1")]);
  const r = await judgePairs({
    ...f,
    experiment: "exp",
    route: { protocol: "responses", url: mock.url, model: "j", key: KEY },
    now: NOW,
  });
  expect(r.errors).toEqual([
    {
      id: "p1",
      error:
        'the judge did not answer with one JSON object: expected one JSON object, got "I think A is better."',
    },
  ]);
  expect(loadHistory(f.history)).toEqual([]);
});

const NOT_ONE = "the judge did not answer with one JSON object";
test.each([
  { text: ' {"a": 0.5, "b": 0.25, "reason": "r"}\n', out: { scores: { a: 0.5, b: 0.25 }, reason: "r" } },
  {
    text: 'x {"a": 0.5, "b": 0.25, "reason": "r"} y',
    out: { error: `${NOT_ONE}: expected one JSON object, got "x {\\"a\\": 0.5, \\"b\\": 0."` },
  },
  {
    text: '{"a": 1, "b": 0, "reason": "r"} {"a": 0, "b": 1, "reason": "r"}',
    out: { error: `${NOT_ONE}: trailing data after the JSON object` },
  },
  {
    text: '```json\n{"a": 1, "b": 0, "reason": "r"}\n```',
    out: { error: `${NOT_ONE}: expected one JSON object, got "\`\`\`json\\n{\\"a\\": 1, \\"b\\""` },
  },
  { text: '{"a": 1, "b": 0}', out: { error: 'the judge\'s "reason" is not a non-empty string' } },
  {
    text: '{"a": 1, "b": 0, "reason": "r", "verdict": "b"}',
    out: { error: 'the judge\'s reply has an unknown field "verdict"' },
  },
  { text: '{"a": 2, "b": 0, "reason": "r"}', out: { error: 'the judge\'s "a" is not a number from 0 to 1' } },
  {
    text: '{"a": "1", "b": 0, "reason": "r"}',
    out: { error: 'the judge\'s "a" is not a number from 0 to 1' },
  },
  { text: '{"a": 1, "reason": "r"}', out: { error: 'the judge\'s "b" is not a number from 0 to 1' } },
  { text: "{not json}", out: { error: `${NOT_ONE}: the reply is not valid JSON` } },
  { text: "", out: { error: `${NOT_ONE}: the reply is empty` } },
])("parseVerdict $text", ({ text: t, out }) => {
  expect(parseVerdict(t, ["a", "b"] as const)).toEqual(out as never);
});

test("clip keeps 24 KiB and marks the cut", () => {
  expect(clip("abc")).toBe("abc");
  expect(clip("x".repeat(30_000))).toBe(`${"x".repeat(24 * 1024)}\n[... truncated ...]`);
});

test("run --rubric adds a judge score per step and never changes pass", async () => {
  await using model = await startMockModel({
    script: () => toolCalls([{ name: "Bash", args: { command: "ls" } }]),
  });
  await using judgeModel = await startMockModel({
    script: () => text('{"score": 0.75, "reason": "close enough"}'),
  });
  using dir = tempDir("steps-judge");
  writeSuite(dir.path, [stepCase("anthropic")]);
  writeFileSync(join(dir.path, "rubric.txt"), RUBRIC);
  const sc = await runStepSuite({
    suite: dir.path,
    model: "m",
    url: model.url,
    keyEnv: "K",
    env: { K: KEY, J: "judge-key-value-1234" },
    judge: {
      rubric: join(dir.path, "rubric.txt"),
      model: "j",
      url: judgeModel.url,
      keyEnv: "J",
      protocol: "gemini",
    },
  });
  expect(sc.results.map((r) => ({ pass: r.pass, judge: r.judge }))).toEqual([
    { pass: false, judge: { score: 0.75, reason: "close enough" } },
  ]);
  expect(sc.judge).toMatchObject({ model: "j", n: 1, errors: 0, mean: 0.75 });
  expect(judgeModel.requests.map((r) => ({ url: r.url, auth: r.auth }))).toEqual([
    { url: "/v1beta/models/j:generateContent", auth: "x-goog-api-key" },
  ]);
});

async function cli(args: string[]) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), "judge", ...args], {
    env: { PATH: process.env.PATH ?? "", JUDGE_KEY: KEY },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

test.concurrent("eval-steps judge: summary, then no new pairs; a failing judge exits 1", async () => {
  await using mock = await startMockModel({ script: fairJudge });
  using dir = tempDir("steps-judge");
  const f = setup(dir.path, [pair("p1")]);
  const base = ["--pairs", f.pairs, "--experiment", "exp", "--history", f.history, "--rubric", f.rubric];
  const judgeFlags = ["--judge-model", "j", "--judge-url", mock.url, "--judge-key-env", "JUDGE_KEY"];
  expect(await cli([...base, ...judgeFlags])).toEqual({
    exitCode: 0,
    stdout: `judged 1 of 1 pairs of experiment exp -> ${f.history} (0 already graded, 0 unusable, 0 errors)\n`,
    stderr: "",
  });
  expect(await cli([...base, ...judgeFlags])).toEqual({
    exitCode: 0,
    stdout: "no new pairs for experiment exp\n",
    stderr: "",
  });
  const f2 = setup(join(dir.path), [pair("p9")]);
  const dead = ["--judge-model", "j", "--judge-url", "http://127.0.0.1:1", "--judge-key-env", "JUDGE_KEY"];
  const failed = await cli([
    "--pairs",
    f2.pairs,
    "--experiment",
    "exp",
    "--history",
    join(dir.path, "h2.jsonl"),
    "--rubric",
    f2.rubric,
    ...dead,
  ]);
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toStartWith("✗ pair p9: judge: Request failed: ");
});

const bad: Array<{
  name: string;
  extra: string[];
  files?: Record<string, string>;
  exitCode: number;
  stderr: RegExp;
}> = [
  {
    name: "unset key variable",
    extra: ["--judge-key-env", "NOPE_UNSET"],
    exitCode: 2,
    stderr: /^✗ --judge-key-env NOPE_UNSET: the variable is not set or empty\n$/,
  },
  {
    name: "bad protocol",
    extra: ["--judge-protocol", "grpc"],
    exitCode: 2,
    stderr: /^✗ --judge-protocol must be one of /,
  },
  {
    name: "bad sample",
    extra: ["--sample", "-1"],
    exitCode: 2,
    stderr: /^✗ --sample must be an integer of at least 0/,
  },
  {
    name: "bad history line",
    extra: [],
    files: { "history.jsonl": "{}\n" },
    exitCode: 3,
    stderr: /^✗ Cannot load history ".*history\.jsonl": line 1: .* at version\n$/,
  },
  {
    name: "empty rubric",
    extra: [],
    files: { "rubric.md": " \n" },
    exitCode: 3,
    stderr: /^✗ Cannot load rubric ".*rubric\.md": the file is empty\n$/,
  },
  {
    name: "bad pair row",
    extra: [],
    files: { "pairs.jsonl": "{" },
    exitCode: 3,
    stderr: /^✗ Cannot read pair store ".*pairs\.jsonl": line 1: /,
  },
  {
    name: "a row over --max-row-bytes",
    extra: ["--max-row-bytes", "10"],
    exitCode: 3,
    stderr:
      /^✗ Cannot read pair store ".*pairs\.jsonl": line 1: longer than 10 bytes \(the row cap; --max-row-bytes raises it\)\n$/,
  },
];
for (const b of bad)
  test.concurrent(`eval-steps judge refuses: ${b.name}`, async () => {
    using dir = tempDir("steps-judge");
    const f = setup(dir.path, [pair("p1")]);
    for (const [n, t] of Object.entries(b.files ?? {})) writeFileSync(join(dir.path, n), t);
    const base = ["--pairs", f.pairs, "--experiment", "exp", "--history", f.history, "--rubric", f.rubric];
    const judge = ["--judge-model", "j", "--judge-url", "http://127.0.0.1:1", "--judge-key-env", "JUDGE_KEY"];
    const r = await cli(overrideFlags([...base, ...judge], b.extra));
    expect({ exitCode: r.exitCode, stdout: r.stdout }).toEqual({ exitCode: b.exitCode, stdout: "" });
    expect(r.stderr).toMatch(b.stderr);
  });
