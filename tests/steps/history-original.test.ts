// The original halo eval's history lines (`{time, kind, online: {...}}`, internal/eval/online.go's
// HistoryEntry) in a judge history: read beside ours and set aside (no per-pair score), said once on
// stderr by `eval-steps harvest --history` and `eval-steps judge --history` alike; a malformed line of
// either generation is one line, exit 3.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import { run } from "../../lib/core/proc.ts";
import { originalNote, parseHistory, readHistory } from "../../lib/steps/history.ts";
import { parsePairKey } from "../../lib/steps/pairs/index.ts";
import { startMockModel, text } from "../support/mock-model.ts";
import { generateSessions, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { entry } from "./history.test.ts";

/** What the original appends after an online reading (RunOnline's OnlineResult under `online`). */
const ONLINE = {
  time: "2026-11-30T02:00:00Z",
  kind: "online",
  online: {
    experiment: "exp",
    rubric: "quality@sha256:ab",
    judgeModel: "judge-1",
    pairs: 4,
    graded: 3,
    judgeErrors: 1,
    controlScore: 0.8,
    candidateScore: 0.6,
    delta: { mean: -0.2, ciLo: -0.4, ciHi: 0, baseline: 0.8 },
    winRate: 0.33,
    controlVariant: "control",
    candidateVariant: "candidate",
    pairIds: ["p1", "p2", "p3", "p4"],
  },
};
/** And after an offline suite run (OfflineHistory: the scorecard's variants and gate). */
const OFFLINE = {
  time: "2026-11-30T01:00:00Z",
  kind: "offline",
  suite: "s",
  variants: [{ name: "a", pass1: 1 }],
};
const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n");

describe("reading a history with the original's lines", () => {
  test("ours are kept, the original's set aside whole; parseHistory gives ours only", () => {
    const text = jsonl(ONLINE, entry("p1", 1, 0.5), OFFLINE, {
      ...ONLINE,
      online: { ...ONLINE.online, pairIds: null },
    });
    expect({ lines: readHistory(text, "h.jsonl"), entries: parseHistory(text, "h.jsonl") }).toEqual({
      lines: {
        entries: [entry("p1", 1, 0.5)],
        original: [ONLINE, OFFLINE, { ...ONLINE, online: { ...ONLINE.online, pairIds: null } }],
      },
      entries: [entry("p1", 1, 0.5)],
    });
  });

  test.each([
    { name: "none", lines: [], note: undefined },
    {
      name: "online and offline",
      lines: [ONLINE, OFFLINE, ONLINE],
      note: 'note: history "h.jsonl": 3 line(s) of the original\'s history (kind offline/online) carry no per-pair score; ignored',
    },
  ])("the note: $name", ({ lines, note }) => {
    expect(originalNote("h.jsonl", lines)).toEqual(note);
  });

  test.each([
    {
      name: "an original line with a numeric kind",
      row: { ...ONLINE, kind: 5 },
      message: "Invalid input: expected string, received number at kind",
    },
    {
      name: "an original line without time",
      row: { kind: "online" },
      message: "Invalid input: expected string, received undefined at time",
    },
    {
      name: "pair ids not a list",
      row: { ...ONLINE, online: { experiment: "exp", pairIds: "p1" } },
      message: "Invalid input: expected array, received string at online.pairIds",
    },
    {
      name: "a line of ours keeps our schema",
      row: { ...entry("p1", 1, 0.5), kind: "online", delta: 3 },
      message: "Too big: expected number to be <=1 at delta",
    },
  ])("$name: one line naming file, line and field", ({ row, message }) => {
    let got: unknown;
    try {
      readHistory(jsonl(entry("p0", 0, 0), row), "h.jsonl");
    } catch (error) {
      got = error instanceof ConfigError ? error.message : error;
    }
    expect(got).toEqual(`Cannot load history "h.jsonl": line 2: ${message}`);
  });
});

/** A sealed pair store of generated sessions (experiment "exp"), its key, and a history beside it. */
function storeWithHistory(dir: string, history: (ids: string[]) => unknown[]) {
  const key = join(dir, "pair.key");
  writeFileSync(key, randomBytes(32).toString("base64"));
  const pairs = generateSessions({ seed: 9, sessions: 3, maxDepth: 4 }).flatMap((s) => sessionPairs(s).pairs);
  const store = join(dir, "pairs.jsonl");
  writePairStore(store, pairs, { key: parsePairKey(readFileSync(key, "utf8"), key) });
  const path = join(dir, "h.jsonl");
  const text = `${jsonl(...history(pairs.map((p) => String((p as { id: string }).id))))}\n`;
  writeFileSync(path, text);
  return {
    args: ["--pairs", store, "--pair-key-file", key, "--experiment", "exp", "--history", path],
    path,
    text,
  };
}

const stepsCli = (args: string[], env: Record<string, string> = {}) =>
  run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), ...args], {
    env: { PATH: process.env.PATH ?? "", CI: "1", ...env },
  });

const NOTE =
  'note: history "<H>": 2 line(s) of the original\'s history (kind offline/online) carry no per-pair score; ignored';

test("eval-steps harvest --history with the original's lines: a note on stderr, our losses still select", async () => {
  using dir = tempDir("history-original");
  const h = storeWithHistory(dir.path, (ids) => [ONLINE, ...ids.map((id) => entry(id, 1, 0.2)), OFFLINE]);
  const r = await stepsCli(["harvest", ...h.args, "--select", "judge-loss", "--dry-run"]);
  const [note, summary] = r.stderr.replaceAll(h.path, "<H>").split("\n");
  expect({
    exitCode: r.exitCode,
    note,
    selectedSome: /^\d+ rows, \d+ steps, [1-9]\d* cases selected/.test(summary ?? ""),
    printed: r.stdout.trim().split("\n").length > 0,
  }).toEqual({ exitCode: 0, note: NOTE, selectedSome: true, printed: true });
});

test("eval-steps judge --history with the original's lines: the same note, its pairs judged, ours appended after", async () => {
  await using mock = await startMockModel({ script: () => text('{"a": 0.5, "b": 0.5, "reason": "even"}') });
  using dir = tempDir("history-original");
  const h = storeWithHistory(dir.path, () => [ONLINE, OFFLINE]);
  writeFileSync(join(dir.path, "rubric.md"), "Prefer the shorter answer.");
  const judge = ["--rubric", join(dir.path, "rubric.md"), "--sample", "2", "--judge-model", "j"];
  const r = await stepsCli(
    ["judge", ...h.args, ...judge, "--judge-url", mock.url, "--judge-key-env", "JUDGE_KEY"],
    { JUDGE_KEY: "sk-history-original-judge" },
  );
  const after = readFileSync(h.path, "utf8");
  expect({
    exitCode: r.exitCode,
    stderr: r.stderr.replaceAll(h.path, "<H>"),
    judged:
      /^judged 2 of \d+ pairs of experiment exp -> .* \(0 already graded, 0 unusable, 0 errors\)\n$/.test(
        r.stdout,
      ),
    originalKept: after.startsWith(h.text),
    appended: readHistory(after, h.path).entries.length,
  }).toEqual({ exitCode: 0, stderr: `${NOTE}\n`, judged: true, originalKept: true, appended: 2 });
});
