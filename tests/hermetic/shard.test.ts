// run-eval --shard K/N and `run-eval merge`, for real: 50 cases (passing, failing an assertion, a
// subject's exit 7, one refused for a missing subject.sh) run whole and as 4 shards side by side, the
// shards merged: the same JSON, summary, JUnit, Markdown and HTML as the whole run once the fields no
// two runs share are set aside (timings, the temp work dir, the egress probe's ephemeral port), the
// same exit code. Then every refusal of merge, one line and exit 2.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcResult } from "../../lib/core/proc.ts";
import { renderJunit } from "../../lib/hermetic/junit.ts";
import { mergeRuns } from "../../lib/hermetic/merge.ts";
import { renderRunEvalReportHtml } from "../../lib/hermetic/report.ts";
import { RunResult } from "../../lib/hermetic/result.ts";
import { renderMarkdown, renderSummary } from "../../lib/hermetic/summary.ts";
import { moveLastUnit, refusal, shardEditor } from "../support/shard-parts.ts";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

const dir = tempDir("run-eval-shard");
const tmp = openTmp();
const root = join(dir.path, "cases");
const env = () => ({ TMPDIR: tmp.path });
const file = (name: string) => join(dir.path, name);
const N = 4;
let whole: { r: ProcResult; result: RunResult };
const shards: Array<{ r: ProcResult; result: RunResult; path: string }> = [];
let merged: { json: ProcResult; text: ProcResult; result: RunResult };

/** Case i: most pass, every 7th fails an assertion, case 20 exits 7, case 33 has no subject.sh. */
function writeCases(): void {
  for (let i = 0; i < 50; i++) {
    const name = `case-${String(i).padStart(2, "0")}`;
    const grade =
      i % 7 === 3 ? [{ tool: "file-exists", file: "OUT/absent.txt", label: "needs a file" }] : undefined;
    writeEvalCase(root, {
      name,
      body: i === 20 ? "exit 7" : `echo ${name} > "$OUT/note.txt"`,
      ...(grade ? { grade } : {}),
      ...(i === 33 ? { noSubject: true } : {}),
    });
  }
}

beforeAll(async () => {
  writeCases();
  const outputs = (p: string) => ["--junit", file(`${p}.xml`), "--report", file(`${p}.html`)];
  const [w, ...parts] = await Promise.all([
    runEval(["-j", "2", "--json", ...outputs("whole"), root], env(), dir.path),
    ...Array.from({ length: N }, (_, k) =>
      runEval(["-j", "2", "--json", "--shard", `${k}/${N}`, ...outputs(`shard${k}`), root], env(), dir.path),
    ),
  ]);
  whole = { r: w as ProcResult, result: RunResult.parse(JSON.parse((w as ProcResult).stdout)) };
  parts.forEach((r, k) => {
    const path = file(`shard${k}.json`);
    writeFileSync(path, r.stdout);
    shards.push({ r, result: RunResult.parse(JSON.parse(r.stdout)), path });
  });
  const paths = [...shards].reverse().map((s) => s.path); // any order
  const json = await runEval(["merge", "--json", ...paths], env(), dir.path);
  const text = await runEval(
    ["merge", "--junit", file("merged.xml"), "--report", file("merged.html"), ...paths],
    { ...env(), GITHUB_STEP_SUMMARY: file("summary.md") },
    dir.path,
  );
  merged = { json, text, result: RunResult.parse(JSON.parse(json.stdout)) };
  return () => {
    dir[Symbol.dispose]();
    tmp[Symbol.dispose]();
  };
}, 600_000);

/** The fields two runs of the same cases never share, set to one value. */
function settle(r: RunResult): RunResult {
  const work = (s: string) =>
    s
      .replace(/proctor-eval-[A-Za-z0-9]+/g, "proctor-eval-W")
      .replace(/127\.0\.0\.1([:/])\d+/g, "127.0.0.1$1P");
  return {
    ...r,
    durationMs: 0,
    cases: r.cases.map((c) => ({
      ...c,
      durationMs: 0,
      subjectMs: c.subjectMs === null ? null : 0,
      output: work(c.output),
      grade: c.grade && { ...c.grade, outDir: work(c.grade.outDir) },
      sandbox: c.sandbox && {
        ...c.sandbox,
        egress: {
          ...c.sandbox.egress,
          target: work(c.sandbox.egress.target),
          detail: work(c.sandbox.egress.detail),
        },
      },
    })),
  };
}

describe("50 cases whole and as 4 shards", () => {
  test("the shards split the cases evenly, each stamped K/N in its JSON, JUnit and summary", () => {
    const sizes = shards.map((s) => s.result.cases.length);
    expect({
      total: sizes.reduce((a, b) => a + b, 0),
      even: Math.max(...sizes) - Math.min(...sizes) <= 1,
      stamps: shards.map((s) => [s.result.shard?.index, s.result.shard?.count, s.result.shard?.total]),
      junit: shards.map((_, k) =>
        readFileSync(file(`shard${k}.xml`), "utf8").includes(`<property name="shard" value="${k}/4"/>`),
      ),
      header: shards.map((s, k) => renderSummary(s.result).split("\n")[0]?.endsWith(`, shard ${k}/4)`)),
      wholeUnstamped: [whole.result.shard, readFileSync(file("whole.xml"), "utf8").includes("<properties>")],
    }).toEqual({
      total: 50,
      even: true,
      stamps: [0, 1, 2, 3].map((k) => [k, 4, 50]),
      junit: [true, true, true, true],
      header: [true, true, true, true],
      wholeUnstamped: [undefined, false],
    });
  });

  test("merge gives the whole run's JSON and exit code; outcomes carried (fail, exit 7, refused)", () => {
    expect(settle(merged.result)).toEqual(settle(whole.result));
    expect({
      exits: [whole.r.exitCode, merged.json.exitCode, merged.text.exitCode],
      counts: merged.result.counts,
      refused: merged.result.cases.filter((c) => c.stage === "refused").map((c) => c.name),
      stderr: merged.json.stderr + merged.text.stderr,
    }).toEqual({
      exits: [7, 7, 7],
      counts: { passed: 41, failed: 7, errors: 2 },
      refused: ["case-33"],
      stderr: "",
    });
  });

  test("merge writes the summary, JUnit, Markdown and HTML of its JSON: the whole run's, byte for byte once settled", () => {
    const step = readFileSync(file("summary.md"), "utf8");
    expect({
      summary: merged.text.stdout,
      junit: readFileSync(file("merged.xml"), "utf8"),
      report: readFileSync(file("merged.html"), "utf8"),
      step,
      wholeJunit: readFileSync(file("whole.xml"), "utf8"),
      wholeReport: readFileSync(file("whole.html"), "utf8"),
    }).toEqual({
      summary: renderSummary(merged.result),
      junit: renderJunit(merged.result),
      report: renderRunEvalReportHtml(merged.result),
      step: renderMarkdown(merged.result),
      wholeJunit: renderJunit(whole.result),
      wholeReport: renderRunEvalReportHtml(whole.result),
    });
    const [a, b] = [settle(merged.result), settle(whole.result)];
    for (const render of [renderSummary, renderJunit, renderMarkdown, renderRunEvalReportHtml])
      expect(render(a)).toBe(render(b));
  });
});

/** The same settling on the bytes: timings, the temp work dir, the probe's port. */
const settleText = (t: string) =>
  t
    .replace(/"(durationMs|subjectMs)": [0-9.e+-]+/g, '"$1": 0')
    .replace(/time="[0-9.]+"/g, 'time="0"')
    .replace(/proctor-eval-[A-Za-z0-9]+/g, "proctor-eval-W")
    .replace(/127\.0\.0\.1([:/])\d+/g, "127.0.0.1$1P");

test("the bytes: merge's --json and JUnit are the whole run's once settled", () => {
  expect({
    json: settleText(merged.json.stdout),
    junit: settleText(readFileSync(file("merged.xml"), "utf8")),
  }).toEqual({
    json: settleText(whole.r.stdout),
    junit: settleText(readFileSync(file("whole.xml"), "utf8")),
  });
});

/** A shard's result changed by `edit` (a deep copy). */
const { edited, asIs } = shardEditor("result", () => shards.map((s) => s.result));

describe("merge refuses what is not one whole run (exit 2, one line)", () => {
  // Messages that name a case are read once the shards exist (the table is built before they run).
  test.each<{
    name: string;
    parts: () => Array<{ file: string; result: RunResult }>;
    message: string | (() => string);
  }>([
    {
      name: "a shard missing",
      parts: () => [asIs(0), asIs(1), asIs(3)],
      message: "Cannot merge: shard 2/4 is missing (given: s0.json, s1.json, s3.json)",
    },
    {
      name: "a shard given twice",
      parts: () => [asIs(0), asIs(1), asIs(2), asIs(3), asIs(1)],
      message: 'Cannot merge "s1.json": shard 1/4 given twice (also "s1.json")',
    },
    {
      name: "an unsharded run",
      parts: () => [asIs(0), { file: "whole.json", result: whole.result }],
      message: 'Cannot merge "whole.json": not a shard (no shard field: was it run with --shard K/N?)',
    },
    {
      name: "K out of range",
      parts: () => [asIs(0), edited(1, (r) => Object.assign(r.shard ?? {}, { index: 4 }))],
      message: 'Cannot merge "s1.json": shard 4/4 is out of range (K must be below N)',
    },
    {
      name: "another N",
      parts: () => [asIs(0), edited(1, (r) => Object.assign(r.shard ?? {}, { count: 5 }))],
      message: 'Cannot merge "s1.json": shard 1/5, but "s0.json" is of 4',
    },
    {
      name: "another case set",
      parts: () => [
        asIs(0),
        edited(1, (r) => Object.assign(r.shard ?? {}, { set: `sha256:${"0".repeat(64)}` })),
      ],
      message: 'Cannot merge "s1.json": another case set than "s0.json" (shard.set differs)',
    },
    {
      name: "a case moved to another shard",
      parts: () => {
        const [moved, taker] = [asIs(0), asIs(1)];
        moveLastUnit(moved.result, taker.result, (r) => r.cases);
        return [moved, taker, asIs(2), asIs(3)];
      },
      message: () =>
        `Cannot merge "s1.json": unit "${shards[0]?.result.shard?.ids.at(-1)}" is not dealt to shard 1/4`,
    },
    {
      name: "ids and cases disagree",
      parts: () => [edited(0, (r) => r.shard?.ids.pop()), asIs(1), asIs(2), asIs(3)],
      message: () =>
        `Cannot merge "s0.json": shard lists ${(shards[0]?.result.cases.length ?? 0) - 1} ids for ${shards[0]?.result.cases.length} cases`,
    },
  ])("$name", ({ parts, message }) => {
    const want = typeof message === "function" ? message() : message;
    expect(refusal(() => mergeRuns(parts()))).toEqual({ exit: 2, message: want });
  });

  test.each([
    {
      name: "no files",
      argv: [],
      stderr: "✗ run-eval merge needs the shards' --json files: run-eval merge FILE...\n",
    },
    {
      name: "not JSON",
      argv: ["bad.json"],
      stderr: /^✗ Cannot load run result "bad\.json": JSON Parse error: .+\n$/,
    },
    {
      name: "not a run result",
      argv: ["obj.json"],
      stderr: '✗ Cannot load run result "obj.json": Invalid input: expected 1 at version\n',
    },
    {
      name: "run-eval --shard 1/0",
      argv: ["--shard", "1/0", "cases"],
      stderr: '✗ Cannot use --shard "1/0": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)\n',
    },
  ])("the command: $name", async ({ argv, stderr }) => {
    writeFileSync(file("bad.json"), "{");
    writeFileSync(file("obj.json"), '{"version": 2}');
    const r = await runEval(argv[0] === "--shard" ? [...argv] : ["merge", ...argv], env(), dir.path);
    expect({ exit: r.exitCode, stdout: r.stdout }).toEqual({ exit: 2, stdout: "" });
    if (typeof stderr === "string") expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });
});
