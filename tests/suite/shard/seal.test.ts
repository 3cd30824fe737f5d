// Issue 23: a shard's trials file sealed under a CI key (`--seal-key-env NAME`), checked by `suite merge
// --seal-key-env NAME`. Two shards run sealed, then each edit an attacker could make to a file between
// the shard and the merge (flip a trial's pass, drop a trial with its seal, add a trial, strip the
// seals, re-seal under another key) is refused with one line, exit 2; the untouched shards merge.
// Without a key merge says, in one line, that it checked consistency only. --resume checks the
// seals it keeps and writes the file back sealed. The key is never in a file, a line or an agent's env.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { CONSISTENCY_ONLY } from "../../../lib/suite/merge-cmd.ts";
import { checkSeals, SEAL_KIND, type SealKey } from "../../../lib/suite/seal.ts";
import { runShard } from "../../../lib/suite/shard-run.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";
import { ADD_REPO, evalsTree } from "../_support.ts";
import { loadSuite, options, TRIALS_NAME, writeSuite } from "./_shards.ts";

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const KEY_VALUE = "k".repeat(24) + "0123456789abcdef0123456789abcdef";
const KEY: SealKey = { name: "PROCTOR_SEAL_KEY", bytes: Buffer.from(KEY_VALUE) };
const OTHER: SealKey = { name: "OTHER", bytes: Buffer.from("o".repeat(40)) };

const dir = tempDir("suite-seal");
afterAll(() => dir[Symbol.dispose]());
let suitePath = "";
let sealed: string[] = [];
let plain: string[] = [];

async function shards(name: string, key?: SealKey): Promise<string[]> {
  const suite = loadSuite(suitePath);
  const files = [0, 1].map((k) => join(dir.path, name, `shard-${k}`, TRIALS_NAME));
  await Promise.all(
    files.map((f, index) =>
      runShard(suite, { index, count: 2 }, options(f, { parallel: 1, ...(key ? { sealKey: key } : {}) })),
    ),
  );
  return files;
}

beforeAll(async () => {
  suitePath = writeSuite(join(dir.path, "evals"));
  [sealed, plain] = await Promise.all([shards("sealed", KEY), shards("plain")]);
});

async function merge(args: string[], env: Record<string, string> = { PROCTOR_SEAL_KEY: KEY_VALUE }) {
  const e = { ...(process.env as Record<string, string>), ...env };
  delete e.CI;
  const r = await run([process.execPath, ENTRY, "suite", "merge", suitePath, ...args], { env: e });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** A copy of sealed shard 0 whose lines went through `edit` (line 1 is the header, line 2 its seal). */
function edited(name: string, edit: (lines: string[]) => string[]): string {
  const lines = readFileSync(sealed[0]!, "utf8").trimEnd().split("\n");
  const path = join(dir.path, "edited", name);
  mkdirSync(join(dir.path, "edited"), { recursive: true });
  writeFileSync(path, `${edit(lines).join("\n")}\n`);
  return path;
}

const flip = (line: string) => JSON.stringify({ ...JSON.parse(line), pass: !JSON.parse(line).pass });
const isSeal = (line: string) => line.includes(SEAL_KIND);

describe("sealed shards", () => {
  test("each line of a sealed file is followed by its seal, and every seal checks", () => {
    const lines = readFileSync(sealed[0]!, "utf8").trimEnd().split("\n");
    const text = readFileSync(sealed[0]!, "utf8");
    expect({
      header: JSON.parse(lines[0]!).seal,
      seals: lines.map((l) => isSeal(l)),
      checked: checkSeals(text, KEY, ""),
      keyInFile: [...sealed, ...plain].some((f) => readFileSync(f, "utf8").includes(KEY_VALUE)),
    }).toEqual({
      header: "hmac-sha256",
      seals: lines.map((_, i) => i % 2 === 1),
      checked: { end: text.length, unsealed: 0 },
      keyInFile: false,
    });
  });

  test("merge with the key: every seal checked, the whole run, no warning", async () => {
    const r = await merge([...sealed, "--seal-key-env", "PROCTOR_SEAL_KEY", "--output", "json"]);
    const plainMerge = await merge([...plain, "--output", "json"]);
    expect({
      exitCode: r.exitCode,
      sameRun: r.stdout === plainMerge.stdout,
      said: r.stderr.includes("every seal checked"),
      warned: r.stderr.includes(CONSISTENCY_ONLY),
      key: r.stderr.includes(KEY_VALUE) || r.stdout.includes(KEY_VALUE),
    }).toEqual({ exitCode: 0, sameRun: true, said: true, warned: false, key: false });
  });

  test("merge without a key: merged, and one line says it checked consistency only", async () => {
    const r = await merge([...sealed], {});
    expect({
      exitCode: r.exitCode,
      warnings: r.stderr.split("\n").filter((l) => l.startsWith("warning:")),
    }).toEqual({ exitCode: 0, warnings: [CONSISTENCY_ONLY] });
  });
});

describe("an edited shard is refused with one line, exit 2", () => {
  const cannot = (name: string) => `error: Cannot merge "${join(dir.path, "edited", name)}": `;
  const MISMATCH =
    "the seal does not match: the file was changed after its shard wrote it, or sealed with another key";
  const cases: { name: string; file: () => string; stderr: () => string }[] = [
    {
      name: "a trial's pass flipped",
      file: () => edited("flipped.jsonl", (l) => l.map((x, i) => (i === 2 ? flip(x) : x))),
      stderr: () => `${cannot("flipped.jsonl")}line 4: ${MISMATCH}`,
    },
    {
      name: "a trial dropped with its seal",
      file: () => edited("dropped.jsonl", (l) => l.filter((_, i) => i !== 2 && i !== 3)),
      stderr: () => `${cannot("dropped.jsonl")}line 4: ${MISMATCH}`,
    },
    {
      name: "a trial added at the end",
      file: () => edited("added.jsonl", (l) => [...l, flip(l[2]!)]),
      stderr: () => `${cannot("added.jsonl")}1 line(s) after its last seal: added after its shard wrote it`,
    },
    {
      name: "the seals stripped and the header unsealed",
      file: () =>
        edited("stripped.jsonl", (l) => [
          JSON.stringify({ ...JSON.parse(l[0]!), seal: undefined }),
          ...l.slice(1).filter((x) => !isSeal(x)),
        ]),
      stderr: () =>
        `${cannot("stripped.jsonl")}not sealed (its shard ran without --seal-key-env), and this merge checks seals`,
    },
    {
      name: "a seal line rewritten",
      file: () =>
        edited("rewritten.jsonl", (l) => l.map((x, i) => (i === 1 ? x.replace("hmac", "HMAC") : x))),
      stderr: () => `${cannot("rewritten.jsonl")}line 2: a malformed seal line`,
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      expect(await merge([c.file(), sealed[1]!, "--seal-key-env", "PROCTOR_SEAL_KEY"])).toEqual({
        exitCode: 2,
        stdout: "",
        stderr: `${c.stderr()}\n`,
      });
    });

  test("shards sealed under another key", async () => {
    const other = await shards("other", OTHER);
    const r = await merge([...other, "--seal-key-env", "PROCTOR_SEAL_KEY"]);
    expect(r).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: `error: Cannot merge "${other[0]}": line 2: the seal does not match: the file was changed after its shard wrote it, or sealed with another key\n`,
    });
  });

  test("unsealed shards given to a sealed merge", async () => {
    expect(await merge([...plain, "--seal-key-env", "PROCTOR_SEAL_KEY"])).toEqual({
      exitCode: 2,
      stdout: "",
      stderr: `error: Cannot merge "${plain[0]}": not sealed (its shard ran without --seal-key-env), and this merge checks seals\n`,
    });
  });

  const keyCases: { name: string; env: Record<string, string>; stderr: string }[] = [
    {
      name: "unset",
      env: {},
      stderr: "--seal-key-env PROCTOR_SEAL_KEY: the variable is not set (it holds the shards' seal key)",
    },
    {
      name: "too short",
      env: { PROCTOR_SEAL_KEY: "short-secret" },
      stderr:
        "--seal-key-env PROCTOR_SEAL_KEY: the key has 12 bytes, expected at least 32 (e.g. openssl rand -hex 32)",
    },
  ];
  for (const c of keyCases)
    test(`a key ${c.name}: a bad command line, the value never shown`, async () => {
      expect(await merge([...sealed, "--seal-key-env", "PROCTOR_SEAL_KEY"], c.env)).toEqual({
        exitCode: 2,
        stdout: "",
        stderr: `error: ${c.stderr}\n`,
      });
    });
});

describe("--resume of a sealed shard", () => {
  test("an unfinished sealed file resumes sealed: its seals check, merge with the key accepts it", async () => {
    const suite = loadSuite(suitePath);
    const file = join(dir.path, "resume", TRIALS_NAME);
    mkdirSync(join(dir.path, "resume"), { recursive: true });
    // A crash: the last two trials (and their seals) never written, half a line left.
    const lines = readFileSync(sealed[0]!, "utf8").trimEnd().split("\n");
    writeFileSync(file, `${lines.slice(0, -4).join("\n")}\n{"task":"t`);
    const r = await runShard(suite, { index: 0, count: 2 }, options(file, { sealKey: KEY, resume: true }));
    const text = readFileSync(file, "utf8");
    const m = await merge([file, sealed[1]!, "--seal-key-env", "PROCTOR_SEAL_KEY"]);
    expect({ resumed: r.resumed, seals: checkSeals(text, KEY, "").unsealed, merged: m.exitCode }).toEqual({
      // Infrastructure failures are run again, as in any resume.
      resumed: lines.slice(2, -4).filter((l) => !isSeal(l) && JSON.parse(l).infra === undefined).length,
      seals: 0,
      merged: 0,
    });
  });

  const resumeCases = [
    {
      name: "an edited sealed file is refused",
      edit: (l: string[]) => l.map((x, i) => (i === 2 ? flip(x) : x)),
      key: KEY,
      error: (f: string) =>
        `Cannot resume from "${f}": line 4: the seal does not match: the file was changed after its shard wrote it, or sealed with another key`,
    },
    {
      name: "a sealed file resumed without the key is refused",
      edit: (l: string[]) => l,
      key: undefined,
      error: (f: string) =>
        `Cannot resume from "${f}": it is sealed: resume it with --seal-key-env and the key it was sealed with`,
    },
  ];
  for (const c of resumeCases)
    test(c.name, async () => {
      const file = edited(`resume-${c.name.split(" ")[1]}.jsonl`, c.edit);
      const run = runShard(
        loadSuite(suitePath),
        { index: 0, count: 2 },
        options(file, { resume: true, ...(c.key ? { sealKey: c.key } : {}) }),
      );
      expect(
        await run.then(
          () => "resumed",
          (e: Error) => e.message,
        ),
      ).toEqual(c.error(file));
    });
});

describe("the key reaches no agent", () => {
  test("under --local a shard's agent runs without the key's variable", async () => {
    const tree = evalsTree(join(dir.path, "env", "evals"));
    tree.task("e", "id: e\nrepo: repo\nprompt: look\ncheck: grep -qx absent seen.txt\n", ADD_REPO);
    const path = tree.suite(
      "env",
      'name: env\ntasks: [e]\nvariants:\n  - {name: c, harness: command, command: "printenv PROCTOR_SEAL_KEY > seen.txt || echo absent > seen.txt"}\n',
    );
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      PROCTOR_SEAL_KEY: KEY_VALUE,
    };
    delete env.CI;
    const trials = join(dir.path, "env", "t.jsonl");
    const args = [
      "suite",
      path,
      "--local",
      "--shard",
      "0/1",
      "--seal-key-env",
      "PROCTOR_SEAL_KEY",
      "--trials",
      trials,
    ];
    const r = await run([process.execPath, ENTRY, ...args], { env });
    const trial = JSON.parse(readFileSync(trials, "utf8").split("\n")[2]!);
    expect({
      exitCode: r.exitCode,
      pass: trial.pass,
      leaked: readFileSync(trials, "utf8").includes(KEY_VALUE),
    }).toEqual({
      exitCode: 0,
      pass: true,
      leaked: false,
    });
  });
});
