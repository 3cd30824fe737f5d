// A suite shard on its own: which trials it runs (from stable ids only, balanced), the digest that
// tells a suite from another (and not a checkout from another), the header line a shard's trials file
// opens with and what a bad one says, and --resume inside a shard (kept, refused across shards).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../lib/core/errors.ts";
import { runTrials, suiteJobs } from "../../../lib/suite/run.ts";
import {
  headerLine,
  jobId,
  parseTrialsText,
  SHARD_KIND,
  type ShardHeader,
  shardHeader,
  shardHeaderJsonSchema,
  shardJobs,
  suiteDigest,
} from "../../../lib/suite/shard.ts";
import { runShard } from "../../../lib/suite/shard-run.ts";
import type { Suite } from "../../../lib/suite/suite.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { loadSuite, options, runShards, TRIALS_NAME, writeSuite } from "./_shards.ts";

const dir = tempDir("suite-shard");
let suite: Suite;
afterAll(() => dir[Symbol.dispose]());
beforeAll(() => {
  suite = loadSuite(writeSuite(join(dir.path, "evals")));
});

const ids = (jobs: { task: { id: string }; variant: { name: string }; repeat: number }[]) =>
  jobs.map((j) => `${j.task.id}/${j.variant.name}#${j.repeat}`);

describe("the deal", () => {
  test("every trial in exactly one shard, sizes within one, the same whatever the job order", () => {
    const jobs = suiteJobs(suite);
    const shards = [0, 1, 2, 3].map((index) => ids(shardJobs(jobs, { index, count: 4 })));
    const reversed = [0, 1, 2, 3].map((index) =>
      ids(shardJobs([...jobs].reverse(), { index, count: 4 })).reverse(),
    );
    expect({
      union: shards.flat().sort(),
      sizes: shards.map((s) => s.length),
      reversed,
      one: ids(shardJobs(jobs, { index: 0, count: 1 })),
    }).toEqual({ union: ids(jobs).sort(), sizes: [6, 6, 6, 6], reversed: shards, one: ids(jobs) });
  });

  test("more shards than trials: the rest are empty, none twice", () => {
    const jobs = suiteJobs(suite);
    const shards = Array.from({ length: 30 }, (_, index) => shardJobs(jobs, { index, count: 30 }).length);
    expect({
      total: shards.reduce((a, b) => a + b, 0),
      most: Math.max(...shards),
      empty: shards.filter((n) => n === 0).length,
    }).toEqual({
      total: 24,
      most: 1,
      empty: 6,
    });
  });

  test("a trial's id is task, variant and repeat", () => {
    expect(jobId({ task: { id: "t" }, variant: { name: "v" }, repeat: 2 })).toEqual("t\u0000v\u00002");
  });
});

describe("the digest", () => {
  test("the same suite elsewhere has the same digest; a changed task, variant or repeat count another", () => {
    using other = tempDir("suite-shard-elsewhere");
    const elsewhere = loadSuite(writeSuite(other.path));
    const changed = loadSuite(writeSuite(join(other.path, "b"), (id) => `do ${id}`));
    const more = { ...suite, repeats: 3 };
    const digest = suiteDigest(suite);
    expect({
      shape: /^sha256:[0-9a-f]{64}$/.test(digest),
      elsewhere: suiteDigest(elsewhere) === digest,
      changed: suiteDigest(changed) === digest,
      repeats: suiteDigest(more) === digest,
    }).toEqual({ shape: true, elsewhere: true, changed: false, repeats: false });
  });
});

describe("the header line", () => {
  const good = (): ShardHeader => shardHeader(suite, { index: 1, count: 4 }, 3, true);
  test("read back with the trials after it; a file without one is the original's", () => {
    const trial = {
      task: "t1",
      variant: "control",
      repeat: 0,
      pass: true,
      costUSD: 0,
      turns: 1,
      wallMs: 5,
      tokens: 0,
      toolErrors: 0,
    };
    const text = `${JSON.stringify(good())}\n${JSON.stringify(trial)}\n`;
    expect({
      sharded: parseTrialsText(text, "f"),
      plain: parseTrialsText(`${JSON.stringify(trial)}\n`, "f"),
    }).toEqual({
      sharded: { header: good(), shard: { index: 1, count: 4 }, trials: [trial] },
      plain: { trials: [trial] },
    });
  });

  const bad: { name: string; change: Record<string, unknown>; error: string }[] = [
    {
      name: "K/N shape",
      change: { shard: "one" },
      error: 'Cannot load trials "f": line 1: shard header: expected K/N at shard',
    },
    {
      name: "K out of range",
      change: { shard: "5/4" },
      error:
        'Cannot load trials "f": line 1: Cannot use shard "5/4": expected K/N with 0 <= K < N (K is 0-based, e.g. 0/4 .. 3/4)',
    },
    {
      name: "digest",
      change: { digest: "md5:x" },
      error: 'Cannot load trials "f": line 1: shard header: expected sha256:<64 hex digits> at digest',
    },
    {
      name: "seed",
      change: { seed: "1" },
      error:
        'Cannot load trials "f": line 1: shard header: Invalid input: expected number, received string at seed',
    },
    {
      name: "unknown key",
      change: { extra: 1 },
      error: 'Cannot load trials "f": line 1: shard header: Unrecognized key: "extra"',
    },
    {
      name: "version",
      change: { version: 2 },
      error: 'Cannot load trials "f": line 1: shard header: Invalid input: expected 1 at version',
    },
  ];
  for (const c of bad)
    test(`a bad header: ${c.name}`, () => {
      const text = `${JSON.stringify({ ...good(), ...c.change })}\n`;
      expect(() => parseTrialsText(text, "f")).toThrow(new ConfigError(c.error));
    });

  test("a header's kind in a trial's text is still a trial line (and its fault is the trial's)", () => {
    expect(() => parseTrialsText(`{"task": "${SHARD_KIND}"}\n`, "f")).toThrow(
      new ConfigError(
        'Cannot load trials "f": line 1: Invalid input: expected string, received undefined at variant',
      ),
    );
  });
});

test("schemas/suite-shard.schema.json is the generated schema of the header", () => {
  const committed = JSON.parse(readFileSync(join(REPO_ROOT, "schemas", "suite-shard.schema.json"), "utf8"));
  expect(committed).toEqual(shardHeaderJsonSchema());
});

describe("a shard's own scorecard", () => {
  test("one shard of one is the whole run, marked; a shard with no trials has none and says why", async () => {
    const jobs = suiteJobs(suite);
    const empty = Array.from({ length: 30 }, (_, i) => i).find(
      (i) => shardJobs(jobs, { index: i, count: 30 }).length === 0,
    )!;
    const [all, none] = await Promise.all([
      runShard(suite, { index: 0, count: 1 }, options(join(dir.path, "one", TRIALS_NAME))),
      runShard(suite, { index: empty, count: 30 }, options(join(dir.path, "none", TRIALS_NAME))),
    ]);
    const { shard, digest, ...rest } = all.scorecard!;
    expect({
      marks: { shard, digest },
      rest: rest.trials!.length,
      none: {
        trials: none.trials,
        unscored: none.unscored,
        file: readFileSync(join(dir.path, "none", TRIALS_NAME), "utf8"),
      },
    }).toEqual({
      marks: { shard: "0/1", digest: suiteDigest(suite) },
      rest: 24,
      none: {
        trials: [],
        unscored: "it has no trials",
        file: headerLine(shardHeader(suite, { index: empty, count: 30 }, 3, true)),
      },
    });
  });
});

describe("--resume inside a shard", () => {
  let files: string[] = [];
  beforeAll(async () => {
    files = await runShards(suite, join(dir.path, "run"), 2);
  });

  test("a cut shard resumes: the kept trials stay, only the rest run, the header first", async () => {
    const lines = readFileSync(files[0]!, "utf8").trimEnd().split("\n");
    const cut = join(dir.path, "cut", TRIALS_NAME);
    mkdirSync(join(dir.path, "cut"));
    // The last trial lost, the one before torn mid-line: a crash.
    writeFileSync(cut, `${lines.slice(0, -2).join("\n")}\n${lines.at(-2)!.slice(0, 20)}`);
    const r = await runShard(suite, { index: 0, count: 2 }, options(cut, { resume: true }));
    expect(lines.slice(1, -2).some((l) => l.includes('"infra"'))).toEqual(true);
    const after = readFileSync(cut, "utf8").trimEnd().split("\n");
    expect({ resumed: r.resumed, n: r.trials.length, header: after[0], lines: after.length }).toEqual({
      // infrastructure failures are not kept: they run again
      resumed: lines.slice(1, -2).filter((l) => !l.includes('"infra"')).length,
      n: 12,
      header: lines[0],
      lines: 13,
    });
  });

  test("--resume on a file that does not exist yet starts it with the shard's header", async () => {
    const fresh = join(dir.path, "fresh", TRIALS_NAME);
    const r = await runShard(suite, { index: 0, count: 2 }, options(fresh, { resume: true }));
    const after = readFileSync(fresh, "utf8").trimEnd().split("\n");
    const first = readFileSync(files[0]!, "utf8").split("\n")[0];
    expect({ resumed: r.resumed, n: r.trials.length, header: after[0], lines: after.length }).toEqual({
      resumed: 0,
      n: 12,
      header: first,
      lines: 13,
    });
  });

  const refusals: {
    name: string;
    file: () => string;
    shard?: { index: number; count: number };
    error: () => string;
  }[] = [
    {
      name: "another shard's file",
      file: () => files[1]!,
      shard: { index: 0, count: 2 },
      error: () => `Cannot resume from "${files[1]}": its shard header has shard "1/2", this run "0/2"`,
    },
    {
      name: "a shard's file without --shard",
      file: () => files[0]!,
      error: () =>
        `Cannot resume from "${files[0]}": it is shard 0/2's trials file: resume it with --shard 0/2`,
    },
  ];
  for (const c of refusals)
    test(`refused: ${c.name}`, async () => {
      const opts = options(c.file(), { resume: true, ...(c.shard ? { shard: c.shard } : {}) });
      expect(runTrials(suite, opts)).rejects.toThrow(new ConfigError(c.error()));
    });

  test("refused: an unsharded file resumed as a shard", async () => {
    const plain = join(dir.path, "plain.jsonl");
    writeFileSync(plain, `${readFileSync(files[0]!, "utf8").split("\n").slice(1).join("\n")}`);
    expect(runShard(suite, { index: 0, count: 2 }, options(plain, { resume: true }))).rejects.toThrow(
      new ConfigError(`Cannot resume from "${plain}": it is an unsharded run's trials file, not shard 0/2's`),
    );
  });
});
