import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runRunlog } from "../../../lib/grade/runlog/cli.ts";
import { countFailureStreak, rotateLog, segmentPaths } from "../../../lib/grade/runlog/log.ts";
import { tempDir } from "../../support/tmp.ts";

const REC = {
  ts: "2026-08-11T12:00:00Z",
  issue: 7,
  mode: "auto",
  skill: "issue-resolver",
  profile: "full",
  qa_cycles: 1,
  outcome: "failed",
  pr: null,
};
const LINE =
  '{"ts":"2026-08-11T12:00:00Z","issue":7,"mode":"auto","skill":"issue-resolver","profile":"full","qa_cycles":1,"outcome":"failed","pr":null}';
const json = (v: unknown) => JSON.stringify(v);
const sorted = (dir: string) => readdirSync(dir).sort();

describe("--append", () => {
  test("is the default: creates parent dirs, appends line + newline, prints nothing", async () => {
    using dir = tempDir("runlog");
    const a = await runRunlog([], json(REC), { cwd: dir.path });
    const b = await runRunlog(["--append"], json({ ...REC, outcome: "success" }), { cwd: dir.path });
    expect({ a, b, log: readFileSync(join(dir.path, ".gitissue/runs.jsonl"), "utf8") }).toEqual({
      a: { exitCode: 0, stdout: "", stderr: "" },
      b: { exitCode: 0, stdout: "", stderr: "" },
      log: `${LINE}\n${LINE.replace('"failed"', '"success"')}\n`,
    });
  });

  test("an invalid record writes nothing (exit 3)", async () => {
    using dir = tempDir("runlog");
    const r = await runRunlog(["--log", "runs.jsonl"], json({ ...REC, issue: "7" }), { cwd: dir.path });
    expect({ r, files: sorted(dir.path) }).toEqual({
      r: { exitCode: 3, stdout: "", stderr: "✗ gi-runlog: issue must be an integer\n" },
      files: [],
    });
  });

  test("a failed append is exit 4 (the log path is a directory)", async () => {
    using dir = tempDir("runlog");
    mkdirSync(join(dir.path, "runs.jsonl"));
    const r = await runRunlog(["--path", "runs.jsonl", "--no-rotate"], json(REC), { cwd: dir.path });
    expect(r).toEqual({
      exitCode: 4,
      stdout: "",
      stderr: `⚠ gi-runlog: could not append to runs.jsonl — [Errno 21] Is a directory: '${join(dir.path, "runs.jsonl")}'\n`,
    });
  });

  test("rotates a log at the byte ceiling, then starts a fresh one", async () => {
    using dir = tempDir("runlog");
    const log = join(dir.path, "runs.jsonl");
    writeFileSync(log, `${"x".repeat(99)}\n`);
    const r = await runRunlog(["--path", log, "--rotate-max-bytes", "100"], json(REC), { cwd: "/" });
    const files = sorted(dir.path);
    expect({
      r,
      count: files.length,
      segment: /^runs-\d{8}T\d{6}Z\.jsonl$/.test(files[0]!),
      active: readFileSync(log, "utf8"),
    }).toEqual({
      r: { exitCode: 0, stdout: "", stderr: "" },
      count: 2,
      segment: true,
      active: `${LINE}\n`,
    });
  });

  test("rotates an idle log (mtime) but not with --no-rotate or with both triggers 0", async () => {
    using dir = tempDir("runlog");
    const log = join(dir.path, "runs.jsonl");
    const old = new Date(Date.now() - 31 * 86400_000);
    writeFileSync(log, "old\n");
    utimesSync(log, old, old);
    await runRunlog(["--path", log, "--no-rotate"], json(REC), { cwd: "/" });
    utimesSync(log, old, old);
    await runRunlog(["--path", log, "--rotate-max-days", "0", "--rotate-max-bytes", "0"], json(REC), {
      cwd: "/",
    });
    expect(sorted(dir.path)).toEqual(["runs.jsonl"]);
    utimesSync(log, old, old);
    await runRunlog(["--path", log], json(REC), { cwd: "/" });
    expect(sorted(dir.path).length).toEqual(2);
  });

  test("same-second rotations get -N suffixes", () => {
    using dir = tempDir("runlog");
    const log = join(dir.path, "runs.jsonl");
    const now = new Date("2026-11-30T01:02:03Z");
    const made = [1, 2, 3].map(() => {
      writeFileSync(log, "x\n");
      return rotateLog(log, now).slice(dir.path.length + 1);
    });
    expect(made).toEqual([
      "runs-20261130T010203Z.jsonl",
      "runs-20261130T010203Z-1.jsonl",
      "runs-20261130T010203Z-2.jsonl",
    ]);
  });

  test("segmentPaths: newest K, oldest first, 0 means none", () => {
    using dir = tempDir("runlog");
    const log = join(dir.path, "runs.jsonl");
    for (const n of [
      "runs-20260103T000000Z.jsonl",
      "runs-20260101T000000Z.jsonl",
      "runs-20260102T000000Z.jsonl",
      "other-1.jsonl",
      "runs.jsonl.lock",
    ]) {
      writeFileSync(join(dir.path, n), "");
    }
    mkdirSync(join(dir.path, "runs-dir.jsonl"));
    const names = (k: number) => segmentPaths(log, k).map((p) => p.slice(dir.path.length + 1));
    expect([names(2), names(10), names(0)]).toEqual([
      ["runs-20260102T000000Z.jsonl", "runs-20260103T000000Z.jsonl"],
      ["runs-20260101T000000Z.jsonl", "runs-20260102T000000Z.jsonl", "runs-20260103T000000Z.jsonl"],
      [],
    ]);
  });
});

describe("--append-once", () => {
  const ID = { ...REC, event_id: "ev-1" };

  test("appends once; an identical retry is already_present; a different payload is exit 3", async () => {
    using dir = tempDir("runlog");
    const io = { cwd: dir.path };
    const argv = ["--append-once", "--path", "runs.jsonl"];
    const first = await runRunlog(argv, json(ID), io);
    const retry = await runRunlog(argv, json(ID), io);
    const conflict = await runRunlog(argv, json({ ...ID, outcome: "success" }), io);
    expect({
      first,
      retry,
      conflict,
      log: readFileSync(join(dir.path, "runs.jsonl"), "utf8").split("\n").length - 1,
    }).toEqual({
      first: { exitCode: 0, stdout: '{"status":"appended","event_id":"ev-1"}\n', stderr: "" },
      retry: { exitCode: 0, stdout: '{"status":"already_present","event_id":"ev-1"}\n', stderr: "" },
      conflict: {
        exitCode: 3,
        stdout: "",
        stderr: "✗ gi-runlog: event_id 'ev-1' already exists with a conflicting payload\n",
      },
      log: 1,
    });
    expect(sorted(dir.path)).toEqual(["runs.jsonl", "runs.jsonl.lock"]);
  });

  test("without a supplied ts the existing ts is ignored; a supplied different ts conflicts", async () => {
    using dir = tempDir("runlog");
    const io = { cwd: dir.path };
    const argv = ["--append-once", "--path", "runs.jsonl"];
    await runRunlog(argv, json(ID), io);
    const noTs = await runRunlog(argv, json({ ...ID, ts: undefined }), io);
    const otherTs = await runRunlog(argv, json({ ...ID, ts: "2026-08-12T00:00:00Z" }), io);
    expect([noTs.stdout, otherTs.exitCode]).toEqual(['{"status":"already_present","event_id":"ev-1"}\n', 3]);
  });

  test("finds the event in a rotated segment inside the tail window only", async () => {
    using dir = tempDir("runlog");
    writeFileSync(join(dir.path, "runs-20260101T000000Z.jsonl"), `not json\n${json(ID)}\n`);
    const io = { cwd: dir.path };
    const seen = await runRunlog(["--append-once", "--path", "runs.jsonl"], json(ID), io);
    const outside = await runRunlog(
      ["--append-once", "--path", "runs.jsonl", "--tail-segments", "0"],
      json(ID),
      io,
    );
    expect([seen.stdout, outside.stdout]).toEqual([
      '{"status":"already_present","event_id":"ev-1"}\n',
      '{"status":"appended","event_id":"ev-1"}\n',
    ]);
  });

  test("int/float/bool equality is Python's (1.0 == 1 in the existing line)", async () => {
    using dir = tempDir("runlog");
    writeFileSync(
      join(dir.path, "runs.jsonl"),
      `${LINE.replace('{"ts"', '{"event_id":"ev-1","ts"').replace('"qa_cycles":1', '"qa_cycles":1.0')}\n`,
    );
    const r = await runRunlog(["--append-once", "--path", "runs.jsonl"], json(ID), { cwd: dir.path });
    expect(r.stdout).toEqual('{"status":"already_present","event_id":"ev-1"}\n');
  });

  test("requires event_id (exit 3, nothing written)", async () => {
    using dir = tempDir("runlog");
    const r = await runRunlog(["--append-once", "--path", "runs.jsonl"], json(REC), { cwd: dir.path });
    expect({ r, files: sorted(dir.path) }).toEqual({
      r: { exitCode: 3, stdout: "", stderr: "✗ gi-runlog: --append-once requires event_id\n" },
      files: [],
    });
  });

  test("an unreadable active log is exit 4", async () => {
    using dir = tempDir("runlog");
    const log = join(dir.path, "runs.jsonl");
    writeFileSync(log, new Uint8Array([0xff, 0x0a]));
    const r = await runRunlog(["--append-once", "--path", log, "--no-rotate"], json(ID), { cwd: "/" });
    expect({
      exitCode: r.exitCode,
      stderr: r.stderr.startsWith(
        `⚠ gi-runlog: could not append to ${log} — cannot read existing log for append-once`,
      ),
    }).toEqual({
      exitCode: 4,
      stderr: true,
    });
  });
});

describe("--failure-streak", () => {
  const line = (issue: unknown, outcome: string) => json({ ...REC, issue, outcome });

  test("countFailureStreak: newest first, other issues skipped, junk tolerated, stops at a non-failure", () => {
    const lines = [
      line(7, "failed"),
      line(7, "success"),
      line(7, "failed"),
      "",
      "garbage",
      "[1]",
      line(8, "success"),
      line(7.0, "failed"),
      line(7, "failed"),
    ];
    expect([
      countFailureStreak(lines, 7),
      countFailureStreak(lines, 8),
      countFailureStreak(lines, 9),
    ]).toEqual([3, 0, 0]);
  });

  test("reads segments + active log and reports quarantine at the threshold", async () => {
    using dir = tempDir("runlog");
    writeFileSync(join(dir.path, "runs-20260101T000000Z.jsonl"), `${line(7, "failed")}\n`);
    writeFileSync(
      join(dir.path, "runs.jsonl"),
      `${line(7, "failed")}\n${line(3, "success")}\n${line(7, "failed")}\n`,
    );
    const io = { cwd: dir.path };
    const at = (argv: string[]) =>
      runRunlog(["--failure-streak", "7", "--path", "runs.jsonl", ...argv], "", io);
    expect([
      await at([]),
      await at(["--threshold", "0"]),
      await at(["--threshold", "4"]),
      await at(["--tail-segments", "0"]),
    ]).toEqual([
      {
        exitCode: 0,
        stdout: '{"mode":"failure_streak","issue":7,"streak":3,"threshold":3,"quarantine":true}\n',
        stderr: "",
      },
      {
        exitCode: 0,
        stdout: '{"mode":"failure_streak","issue":7,"streak":3,"threshold":0,"quarantine":false}\n',
        stderr: "",
      },
      {
        exitCode: 0,
        stdout: '{"mode":"failure_streak","issue":7,"streak":3,"threshold":4,"quarantine":false}\n',
        stderr: "",
      },
      {
        exitCode: 0,
        stdout: '{"mode":"failure_streak","issue":7,"streak":2,"threshold":3,"quarantine":false}\n',
        stderr: "",
      },
    ]);
  });

  test("a missing log prints streak 0 and exits 4", async () => {
    using dir = tempDir("runlog");
    expect(await runRunlog(["--failure-streak", "7", "--path", "none.jsonl"], "", { cwd: dir.path })).toEqual(
      {
        exitCode: 4,
        stdout: '{"mode":"failure_streak","issue":7,"streak":0,"threshold":3,"quarantine":false}\n',
        stderr:
          "⚠ gi-runlog: could not read none.jsonl — reporting a streak of 0 (quarantine progress only, never an existing quarantine)\n",
      },
    );
  });

  test("a negative threshold is exit 3", async () => {
    expect(await runRunlog(["--failure-streak", "7", "--threshold", "-1"], "", { cwd: "/" })).toEqual({
      exitCode: 3,
      stdout: "",
      stderr: "✗ gi-runlog: --threshold must be >= 0\n",
    });
  });

  test("an unreadable log (a directory) counts as missing: streak 0, exit 4", async () => {
    using dir = tempDir("runlog");
    mkdirSync(join(dir.path, "runs.jsonl"));
    const r = await runRunlog(["--failure-streak", "7", "--path", "runs.jsonl"], "", { cwd: dir.path });
    expect({ exitCode: r.exitCode, stdout: r.stdout }).toEqual({
      exitCode: 4,
      stdout: '{"mode":"failure_streak","issue":7,"streak":0,"threshold":3,"quarantine":false}\n',
    });
  });
});
