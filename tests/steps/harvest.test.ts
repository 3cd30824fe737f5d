// eval-steps harvest end to end: cases written with mode 0600 in a 0700 directory, valid StepCases,
// sealed and plaintext stores, --dry-run writes nothing, session hashes keyed and stable, identifier
// fields dropped, user patterns and kept fields honoured, a planted leak detector or a broken
// redaction stops the whole harvest with nothing written, and the CLI's exit codes. Publication is one
// rename: a non-empty --out is refused, a failure midway (or an --out that fills up meanwhile) leaves
// --out exactly as it was and no stage beside it; a repeated pair id is bad input naming its lines.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { REDACTION_RULES_VERSION } from "../../lib/redact/strict.ts";
import { loadStepCase } from "../../lib/steps/case.ts";
import { caseId, harvest } from "../../lib/steps/harvest.ts";
import { plainFiles, publishCases } from "../../lib/steps/harvest-files.ts";
import { parsePairKey } from "../../lib/steps/pairs/index.ts";
import { generateSessions, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

function fixture(dir: string, o: { sealed?: boolean; seed?: number } = {}) {
  const key = join(dir, "pair.key");
  writeFileSync(key, randomBytes(32).toString("base64"));
  const pairs = generateSessions({ seed: o.seed ?? 9, sessions: 6, maxDepth: 8 }).flatMap(
    (s) => sessionPairs(s).pairs,
  );
  const path = join(dir, "pairs.jsonl");
  writePairStore(path, pairs, o.sealed ? { key: parsePairKey(readFileSync(key, "utf8"), key) } : {});
  return { pairs: path, key, rows: pairs };
}

const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

describe.each([{ sealed: false }, { sealed: true }])("sealed: $sealed", ({ sealed }) => {
  test("writes valid cases, 0600 files in a 0700 directory, and nothing else", async () => {
    using dir = tempDir("harvest");
    const f = fixture(dir.path, { sealed });
    const out = join(dir.path, "suite");
    const r = await harvest({
      pairs: f.pairs,
      pairKeyFiles: [f.key],
      experiment: "exp",
      out,
      now: new Date("2026-11-30T04:00:00Z"),
    });
    expect(r.written.length).toBeGreaterThan(0);
    expect(readdirSync(out).sort()).toEqual(r.cases.map((c) => `${c.id}.json`).sort());
    expect(mode(out)).toEqual("700");
    expect(r.written.map(mode)).toEqual(r.written.map(() => "600"));
    for (const [i, path] of r.written.entries()) {
      const c = loadStepCase(path);
      const preview = r.cases[i];
      expect({
        id: c.id,
        reasons: c.reasons,
        provenance: c.provenance,
        expectedFrom: c.expectedFrom,
      }).toEqual({
        id: preview?.id,
        reasons: preview?.reasons,
        provenance: preview?.provenance,
        expectedFrom: preview?.expectedFrom,
      } as never);
      expect(c.provenance.harvestedAt).toEqual("2026-11-30T04:00:00Z");
      expect(c.provenance.redaction).toEqual(REDACTION_RULES_VERSION);
    }
  });
});

test("--dry-run previews provenance and expected tool names and writes nothing", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const out = join(dir.path, "suite");
  const r = await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", out, dryRun: true });
  expect(r.cases.length).toBeGreaterThan(0);
  expect(Object.keys(r.cases[0] ?? {}).sort()).toEqual([
    "expectedFrom",
    "expectedTools",
    "id",
    "provenance",
    "reasons",
  ]);
  expect(existsSync(out)).toBe(false);
  expect(r.written).toEqual([]);
});

test("session ids are hashed with a key: stable across harvests, never raw, other key other hash", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const other = join(dir.path, "other.key");
  writeFileSync(other, randomBytes(32).toString("base64"));
  const a = await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", dryRun: true });
  const b = await harvest({ pairs: f.pairs, pairKeyFiles: [f.key, other], experiment: "exp", dryRun: true });
  const c = await harvest({
    pairs: f.pairs,
    pairKeyFiles: [f.key],
    sessionKeyFile: other,
    experiment: "exp",
    dryRun: true,
  });
  const sessions = (r: typeof a) => r.cases.map((x) => x.provenance.session);
  expect(sessions(b)).toEqual(sessions(a));
  expect(sessions(c).some((s, i) => s === sessions(a)[i])).toBe(false);
  // Steps of one session share one hash.
  const bySession = new Map<string, Set<string>>();
  for (const x of a.cases) {
    const raw = f.rows.find((p) => p.id === x.provenance.pairId)?.session_id as string;
    bySession.set(raw, (bySession.get(raw) ?? new Set()).add(x.provenance.session));
  }
  expect([...bySession.values()].every((s) => s.size === 1)).toBe(true);
  const out = join(dir.path, "suite");
  await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", out });
  const text = readdirSync(out)
    .map((n) => readFileSync(join(out, n), "utf8"))
    .join("\n");
  for (const raw of bySession.keys()) expect(text.includes(`"${raw}"`)).toBe(false);
});

test("identifier fields are dropped, --keep-field keeps one, --redact-pattern redacts", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const out = join(dir.path, "suite");
  await harvest({
    pairs: f.pairs,
    pairKeyFiles: [f.key],
    experiment: "exp",
    out,
    redactPatterns: ["Fix the bug"],
  });
  const cases = readdirSync(out).map((n) => loadStepCase(join(out, n)));
  const keys = new Set(cases.flatMap((c) => Object.keys(c.request)));
  expect(["metadata", "prompt_cache_key"].filter((k) => keys.has(k))).toEqual([]);
  expect(JSON.stringify(cases).includes("Fix the bug")).toBe(false);
  expect(JSON.stringify(cases).includes("[REDACTED:pattern-1]")).toBe(true);
  const out2 = join(dir.path, "suite2");
  await harvest({
    pairs: f.pairs,
    pairKeyFiles: [f.key],
    experiment: "exp",
    out: out2,
    keepFields: ["max_tokens", "metadata"],
  });
  const kept = readdirSync(out2).map((n) => loadStepCase(join(out2, n)));
  const anth = kept.find((c) => c.protocol === "anthropic");
  expect(anth?.request.metadata).toEqual({ user_id: "user_abc_account_123" } as never);
});

test("a planted leak detector that fires stops the whole harvest: nothing written", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const out = join(dir.path, "suite");
  mkdirSync(out, { mode: 0o755 }); // an empty --out is allowed, and stays as it was
  let err: unknown;
  try {
    await harvest({
      pairs: f.pairs,
      pairKeyFiles: [f.key],
      experiment: "exp",
      out,
      leakDetectors: [{ name: "planted", pattern: /coding agent/g }],
    });
  } catch (e) {
    err = e;
  }
  expect({ name: (err as Error).name, exit: (err as { exitCode: number }).exitCode }).toEqual({
    name: "RedactionError",
    exit: 3,
  });
  expect((err as Error).message).toMatch(
    /^Cannot write case "[^"]+": a planted shape survived redaction at \$\.request\./,
  );
  // No case in --out, its mode untouched, and no stage left beside it.
  expect({ out: readdirSync(out), mode: mode(out), beside: readdirSync(dir.path).sort() }).toEqual({
    out: [],
    mode: "755",
    beside: ["pair.key", "pairs.jsonl", "suite"],
  });
});

test("a redaction that breaks the step fails closed", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const out = join(dir.path, "suite");
  // Redacting a tool name changes the offered tools: not the same step any more.
  const r = harvest({
    pairs: f.pairs,
    pairKeyFiles: [f.key],
    experiment: "exp",
    out,
    redactPatterns: ["\\bRead\\b"],
  });
  await expect(r).rejects.toThrow(/no longer parses as the same step|changed call/);
  expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
});

/** Every entry under `dir`: relative name, mode and content (directories by name), sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((n) => {
      const p = join(dir, n);
      const st = statSync(p);
      return `${n} ${mode(p)} ${st.isDirectory() ? "dir" : readFileSync(p, "utf8")}`;
    });
}

test("a directory at one case's name in --out: refused (exit 2), --out byte-identical", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const preview = await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", dryRun: true });
  const ids = preview.cases.map((c) => c.id).sort();
  const out = join(dir.path, "suite");
  mkdirSync(join(out, `${ids[ids.length - 1]}.json`), { recursive: true });
  writeFileSync(join(out, "notes.md"), "mine");
  const before = tree(dir.path);
  const r = harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", out });
  await expect(r).rejects.toMatchObject({
    exitCode: 2,
    message: `Cannot write cases to "${out}": it exists and is not an empty directory (harvest writes a new suite directory)`,
  });
  expect(tree(dir.path)).toEqual(before);
});

describe("publication", () => {
  const A = { name: "a.json", text: "{}\n" };
  const B = { name: "b.json", text: "[]\n" };
  const cases: Array<{
    name: string;
    outExists: boolean;
    gen: (out: string) => Generator<{ name: string; text: string }>;
    error?: { exitCode: number; message: RegExp };
    after: { out: string[] | null; beside: string[] };
  }> = [
    {
      name: "a case that fails midway: --out stays absent",
      outExists: false,
      *gen() {
        yield A;
        throw new Error("build failed");
      },
      error: { exitCode: 4, message: /^Cannot write cases to ".*": build failed; nothing written$/ },
      after: { out: null, beside: [] },
    },
    {
      name: "--out gets a file before the rename: rolled back, the file kept",
      outExists: false,
      *gen(out) {
        yield A;
        mkdirSync(out);
        writeFileSync(join(out, "late.txt"), "x");
        yield B;
      },
      error: {
        exitCode: 4,
        message:
          /^Cannot write cases to ".*": (a directory that is not empty|already exists); nothing written$/,
      },
      after: { out: ["late.txt"], beside: ["suite"] },
    },
    {
      name: "two cases with one name: rolled back",
      outExists: true,
      *gen() {
        yield A;
        yield A;
      },
      error: { exitCode: 4, message: /already exists; nothing written$/ },
      after: { out: [], beside: ["suite"] },
    },
    {
      name: "an empty --out: published whole",
      outExists: true,
      *gen() {
        yield A;
        yield B;
      },
      after: { out: ["a.json", "b.json"], beside: ["suite"] },
    },
  ];
  test.each(cases)("$name", ({ outExists, gen, error, after }) => {
    using dir = tempDir("publish");
    const out = join(dir.path, "suite");
    if (outExists) mkdirSync(out);
    let err: { exitCode?: number; message: string } | undefined;
    let written: string[] = [];
    try {
      written = publishCases(plainFiles, out, gen(out));
    } catch (e) {
      err = e as Error;
    }
    expect(err ? { exitCode: err.exitCode, message: err.message } : undefined).toEqual(
      error ? { exitCode: error.exitCode, message: expect.stringMatching(error.message) } : undefined,
    );
    expect({
      out: existsSync(out) ? readdirSync(out).sort() : null,
      beside: readdirSync(dir.path),
      written,
    }).toEqual({ ...after, written: error ? [] : (after.out ?? []).map((n) => join(out, n)) });
    if (!error) expect([mode(out), ...written.map(mode)]).toEqual(["700", "600", "600"]);
  });
});

describe("flat memory: facts and choices spilled, outputs unchanged", () => {
  // Sessions interleaved and out of time order, four pairs without a session id, a fixed key: the
  // digests are of the result and every case file as the in-memory harvest (before the spill) wrote them.
  const rows: Array<{ name: string; extra: Record<string, unknown>; cases: number; digest: string }> = [
    {
      name: "default reasons",
      extra: {},
      cases: 273,
      digest: "d873f9063a9587c05b493c67d4e37bb2989bb6b284c210e8ba579f550cc3875a",
    },
    {
      name: "sample, diverged and invalid-call, per-depth 3, seed 7",
      extra: { select: ["sample", "diverged", "invalid-call"], perDepth: 3, seed: 7 },
      cases: 278,
      digest: "a2580fd5b03ee881bcd92ba8eccb9726ffa7227455a89f0377159c59abcd3bad",
    },
  ];
  test.each(rows)("$name: byte-identical to the in-memory harvest", async ({ extra, cases, digest }) => {
    using dir = tempDir("harvest");
    const key = join(dir.path, "pair.key");
    writeFileSync(key, Buffer.alloc(32, 7).toString("base64"));
    const pairs = generateSessions({ seed: 3, sessions: 30 }).flatMap((s) => sessionPairs(s).pairs);
    const mixed = [...pairs.filter((_, i) => i % 2 === 0), ...pairs.filter((_, i) => i % 2 === 1).reverse()];
    const store = join(dir.path, "pairs.jsonl");
    writePairStore(
      store,
      mixed.map((p, i) => (i < 4 ? { ...p, session_id: undefined } : p)),
    );
    const out = join(dir.path, "suite");
    const r = await harvest({
      pairs: store,
      pairKeyFiles: [key],
      experiment: "exp",
      out,
      now: new Date("2026-11-30T04:00:00Z"),
      ...extra,
    });
    const h = createHash("sha256");
    h.update(JSON.stringify({ ...r, written: r.written.map((p) => p.slice(out.length)) }));
    for (const n of readdirSync(out).sort()) h.update(n).update(readFileSync(join(out, n)));
    expect({ cases: r.cases.length, digest: h.digest("hex") }).toEqual({ cases, digest });
  });

  /** Harvests `f` into `out` with TMPDIR set to `tmp`; the error thrown, if any. */
  async function harvestWithTmp(tmp: string, f: ReturnType<typeof fixture>, out: string, planted = false) {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const leakDetectors = planted ? [{ name: "planted", pattern: /coding agent/g }] : [];
    try {
      await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", out, leakDetectors });
      return undefined;
    } catch (e) {
      return e as { name: string; exitCode?: number; message: string };
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  }

  test("the spill leaves nothing in the temp dir, after a harvest or a failed one", async () => {
    using dir = tempDir("harvest");
    const f = fixture(dir.path, { sealed: true });
    const tmp = join(dir.path, "tmp");
    mkdirSync(tmp);
    const ok = await harvestWithTmp(tmp, f, join(dir.path, "suite"));
    const failed = await harvestWithTmp(tmp, f, join(dir.path, "suite2"), true);
    expect({ tmp: readdirSync(tmp), ok, failed: failed?.name }).toEqual({
      tmp: [],
      ok: undefined,
      failed: "RedactionError",
    });
  });

  test("a temp dir that cannot hold the spill: exit 4, one line naming it, nothing written", async () => {
    using dir = tempDir("harvest");
    const f = fixture(dir.path);
    const tmp = join(dir.path, "no-such-tmp");
    const error = await harvestWithTmp(tmp, f, join(dir.path, "suite"));
    expect({
      exitCode: error?.exitCode,
      message: error?.message,
      out: existsSync(join(dir.path, "suite")),
    }).toEqual({
      exitCode: 4,
      message: `Cannot harvest: no spill file in the temp dir "${tmp}" (TMPDIR): no such file`,
      out: false,
    });
  });
});

test("a repeated pair id, or two ids with one case file name, is bad input naming both lines (exit 3)", async () => {
  using dir = tempDir("harvest");
  const f = fixture(dir.path);
  const first = f.rows.findIndex((p) => p.experiment === "exp");
  const row = f.rows[first] as (typeof f.rows)[number];
  const dup = join(dir.path, "dup.jsonl");
  writePairStore(dup, [...f.rows, row]);
  const clash = join(dir.path, "clash.jsonl");
  writePairStore(clash, [...f.rows, { ...row, id: "a/b" }, { ...row, id: caseId("a/b") }]);
  const n = f.rows.length;
  for (const [pairs, message] of [
    [dup, `Cannot read pair store "${dup}": lines ${first + 1} and ${n + 1} have the same pair id`],
    [
      clash,
      `Cannot read pair store "${clash}": lines ${n + 1} and ${n + 2} have pair ids that give the same case file name`,
    ],
  ] as const) {
    const r = harvest({ pairs, pairKeyFiles: [f.key], experiment: "exp", out: join(dir.path, "suite") });
    await expect(r).rejects.toMatchObject({ exitCode: 3, message });
  }
  expect(existsSync(join(dir.path, "suite"))).toBe(false);
});

describe("CLI", () => {
  async function cli(args: string[]) {
    const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), "harvest", ...args], {
      env: { PATH: process.env.PATH ?? "", CI: "1" },
    });
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  }
  test.concurrent("dry run prints one line per case, exit 0", async () => {
    using dir = tempDir("harvest-cli");
    const f = fixture(dir.path, { sealed: true });
    const r = await cli(["--pairs", f.pairs, "--pair-key-file", f.key, "--experiment", "exp", "--dry-run"]);
    const lib = await harvest({ pairs: f.pairs, pairKeyFiles: [f.key], experiment: "exp", dryRun: true });
    expect(r.exitCode).toEqual(0);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("\t")[0]),
    ).toEqual(lib.cases.map((c) => c.id));
  });
  test.concurrent("json output and repeated --pair-key-file (retired key first)", async () => {
    using dir = tempDir("harvest-cli");
    const f = fixture(dir.path, { sealed: true });
    const retired = join(dir.path, "old.key");
    writeFileSync(retired, randomBytes(32).toString("base64"));
    const out = join(dir.path, "suite");
    const r = await cli([
      "--pairs",
      f.pairs,
      "--pair-key-file",
      retired,
      "--pair-key-file",
      f.key,
      "--session-key-file",
      f.key,
      "--experiment",
      "exp",
      "--out",
      out,
      "--output",
      "json",
    ]);
    expect(r.exitCode).toEqual(0);
    expect(JSON.parse(r.stdout).written.length).toEqual(readdirSync(out).length);
  });
  const bad: Array<{
    name: string;
    args: (d: string, f: ReturnType<typeof fixture>) => string[];
    exit: number;
    err: RegExp;
  }> = [
    {
      name: "unknown reason",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--select",
        "vibes",
        "--dry-run",
      ],
      exit: 2,
      err: /unknown --select reason "vibes"/,
    },
    {
      name: "judge-loss without history",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--select",
        "judge-loss",
        "--dry-run",
      ],
      exit: 2,
      err: /needs --history/,
    },
    {
      name: "no out",
      args: (_d, f) => ["--pairs", f.pairs, "--pair-key-file", f.key, "--experiment", "exp"],
      exit: 2,
      err: /--out is required/,
    },
    {
      name: "no key at all",
      args: (_d, f) => ["--pairs", f.pairs, "--experiment", "exp", "--dry-run"],
      exit: 2,
      err: /give --pair-key-file or --session-key-file/,
    },
    {
      name: "bad regex",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--redact-pattern",
        "(",
        "--dry-run",
      ],
      exit: 2,
      err: /bad --redact-pattern/,
    },
    {
      name: "empty-matching regex",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--redact-pattern",
        "x*",
        "--dry-run",
      ],
      exit: 2,
      err: /matches the empty string/,
    },
    {
      name: "bad per-depth",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--per-depth",
        "two",
        "--dry-run",
      ],
      exit: 2,
      err: /--per-depth must be an integer/,
    },
    {
      name: "missing store",
      args: (d, f) => [
        "--pairs",
        join(d, "none.jsonl"),
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--dry-run",
      ],
      exit: 3,
      err: /Cannot read pair store .*no such file/,
    },
    {
      name: "wrong key",
      args: (d) => [
        "--pairs",
        join(d, "pairs.jsonl"),
        "--pair-key-file",
        join(d, "wrong.key"),
        "--experiment",
        "exp",
        "--dry-run",
      ],
      exit: 3,
      err: /line 1: no key for kid/,
    },
    {
      name: "--out not empty",
      args: (d, f) => ["--pairs", f.pairs, "--pair-key-file", f.key, "--experiment", "exp", "--out", d],
      exit: 2,
      err: /^✗ Cannot write cases to ".*": it exists and is not an empty directory/,
    },
    {
      name: "a row over --max-row-bytes",
      args: (_d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--max-row-bytes",
        "100",
        "--dry-run",
      ],
      exit: 3,
      err: /^✗ Cannot read pair store ".*": line 1: longer than 100 bytes \(the row cap; --max-row-bytes raises it\)\n$/,
    },
    {
      name: "bad --max-row-bytes",
      args: (_d, f) => ["--pairs", f.pairs, "--experiment", "exp", "--max-row-bytes", "0", "--dry-run"],
      exit: 2,
      err: /--max-row-bytes must be an integer of at least 1, got "0"/,
    },
    {
      name: "a FIFO as the store",
      args: (d, f) => {
        spawnSync("mkfifo", [join(d, "fifo.jsonl")]);
        return [
          "--pairs",
          join(d, "fifo.jsonl"),
          "--pair-key-file",
          f.key,
          "--experiment",
          "exp",
          "--dry-run",
        ];
      },
      exit: 3,
      err: /^✗ Cannot read pair store ".*fifo\.jsonl": not a regular file\n$/,
    },
    {
      name: "bad history",
      args: (d, f) => [
        "--pairs",
        f.pairs,
        "--pair-key-file",
        f.key,
        "--experiment",
        "exp",
        "--history",
        join(d, "pair.key"),
        "--select",
        "judge-loss",
        "--dry-run",
      ],
      exit: 3,
      err: /Cannot parse history/,
    },
  ];
  test.concurrent.each(bad)("$name: exit $exit, one line", async ({ args, exit, err }) => {
    using dir = tempDir("harvest-cli");
    const f = fixture(dir.path, { sealed: true });
    writeFileSync(join(dir.path, "wrong.key"), randomBytes(32).toString("base64"));
    const r = await cli(args(dir.path, f));
    expect({ exitCode: r.exitCode, stdout: r.stdout, lines: r.stderr.trim().split("\n").length }).toEqual({
      exitCode: exit,
      stdout: "",
      lines: 1,
    });
    expect(r.stderr).toMatch(err);
    expect(r.stderr.includes(readFileSync(f.key, "utf8").trim())).toBe(false);
  });
});
