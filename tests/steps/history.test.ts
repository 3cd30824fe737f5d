import { expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  appendHistory,
  gradedIds,
  type HistoryEntry,
  historyJsonSchema,
  judgeLoss,
  loadHistory,
  parseHistory,
} from "../../lib/steps/history.ts";
import { tempDir } from "../support/tmp.ts";

const RUBRIC = `sha256:${"a".repeat(64)}`;

/** A valid entry for pair `id`, scores as given. */
export function entry(id: string, control: number, candidate: number, experiment = "exp"): HistoryEntry {
  return {
    version: 1,
    id,
    experiment,
    time: "2026-11-30T03:00:00Z",
    judge: { model: "judge-1", rubric: RUBRIC },
    control: { score: control, reason: "ok" },
    candidate: { score: candidate },
    delta: candidate - control,
    order: "control-first",
    seed: 1,
  };
}

test("append then load gives the same entries, file mode 0600", async () => {
  using dir = tempDir("history");
  const path = join(dir.path, "h.jsonl");
  expect(loadHistory(path)).toEqual([]);
  await appendHistory(path, [entry("p1", 1, 0.5)]);
  await appendHistory(path, [entry("p2", 0.2, 0.9, "other")]);
  expect(loadHistory(path)).toEqual([entry("p1", 1, 0.5), entry("p2", 0.2, 0.9, "other")]);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(readFileSync(path, "utf8").split("\n").length).toBe(3);
});

test("gradedIds keeps one experiment; judgeLoss is control minus candidate", () => {
  const all = [entry("p1", 1, 0.5), entry("p2", 0, 0, "other"), entry("p3", 0.5, 1)];
  expect([...gradedIds(all, "exp")]).toEqual(["p1", "p3"]);
  expect(all.map(judgeLoss)).toEqual([0.5, 0, -0.5]);
});

test("blank lines are skipped; unknown fields are kept", () => {
  const line = JSON.stringify({ ...entry("p1", 1, 1), extra: true });
  expect(parseHistory(`\n${line}\n\n`, "h")).toEqual([{ ...entry("p1", 1, 1), extra: true } as HistoryEntry]);
});

const e = (over: Record<string, unknown>) => JSON.stringify({ ...entry("p", 1, 1), ...over });
const bad = [
  { name: "not JSON", line: "{", error: /^Cannot parse history "h": line 2: / },
  {
    name: "no version",
    line: e({ version: undefined }),
    error: /^Cannot load history "h": line 2: .* at version$/,
  },
  { name: "version 2", line: e({ version: 2 }), error: /line 2: .* at version$/ },
  { name: "score above 1", line: e({ control: { score: 2 } }), error: /line 2: .* at control\.score$/ },
  { name: "empty id", line: e({ id: "" }), error: /line 2: .* at id$/ },
  {
    name: "bad rubric digest",
    line: e({ judge: { model: "j", rubric: "x" } }),
    error: /line 2: .* at judge\.rubric$/,
  },
  { name: "bad time", line: e({ time: "yesterday" }), error: /line 2: .* at time$/ },
  { name: "bad order", line: e({ order: "random" }), error: /line 2: .* at order$/ },
];
for (const c of bad)
  test(`bad line: ${c.name}`, () => {
    expect(() => parseHistory(`${JSON.stringify(entry("ok", 1, 1))}\n${c.line}\n`, "h")).toThrow(c.error);
  });

test("a bad entry is refused before anything is written", async () => {
  using dir = tempDir("history");
  const path = join(dir.path, "h.jsonl");
  writeFileSync(path, "");
  await expect(
    appendHistory(path, [entry("p1", 1, 1), { ...entry("p2", 1, 1), delta: 5 }]),
  ).rejects.toThrow();
  expect(readFileSync(path, "utf8")).toBe("");
});

test("schemas/step-history.schema.json is the generated schema", () => {
  const committed = JSON.parse(
    readFileSync(join(import.meta.dirname, "..", "..", "schemas", "step-history.schema.json"), "utf8"),
  );
  expect(committed).toEqual(historyJsonSchema());
});
