import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { deflateSync } from "node:zlib";
import { run } from "../../lib/core/proc.ts";
import {
  findLeaks,
  type LeakSpec,
  promptShingles,
  scanRunRoot,
  scanSkills,
  shingles,
  walkRunRoot,
  words,
} from "../../lib/leak/index.ts";
import { tempDir } from "../support/tmp.ts";

const CANARY = "CANARY-7f3a9c0e1b2d4f68";
const PROMPT = "Fix the flaky retry loop in the issue resolver so that it stops after three attempts.";
const CRITERIA = [
  { id: "opens-pr", text: "The agent opens a pull request that references the issue number in its body." },
  {
    id: "reports-behavior",
    text: "The agent reports the observed behaviour before changing any code at all.",
  },
];
const SPEC: LeakSpec = { canary: CANARY, promptShingles: promptShingles(PROMPT), criteria: CRITERIA };

function write(root: string, rel: string, data: string | Uint8Array): string {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  return abs;
}

describe("tokenisation: re.findall(r'[a-z0-9]+', text.lower())", () => {
  test.each([
    ["punctuation and case", "Hello, World! foo_bar 42x", ["hello", "world", "foo", "bar", "42x"]],
    ["whitespace of any kind", "a\tb\n\nc  d\r\ne", ["a", "b", "c", "d", "e"]],
    ["non-ASCII letters separate words", "café naïve", ["caf", "na", "ve"]],
    ["lowercasing into ASCII (Kelvin sign)", "\u212Aelvin", ["kelvin"]],
    ["nothing", "  -- ", []],
  ])("%s", (_name, text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  test("shingles are 8 consecutive words; fewer words give none", () => {
    expect({
      nine: [...shingles("one two three four five six seven eight nine")],
      seven: [...shingles("one two three four five six seven")],
    }).toEqual({
      nine: ["one two three four five six seven eight", "two three four five six seven eight nine"],
      seven: [],
    });
  });

  test("a prompt under 8 words is one whole-words key", () => {
    expect([...promptShingles("Fix the BUG!")]).toEqual(["fix the bug"]);
  });
});

describe("findLeaks on single files", () => {
  const cases: { name: string; content: string | Uint8Array; expected: string[] }[] = [
    { name: "clean text", content: "nothing to see here, just notes about retries", expected: [] },
    { name: "canary", content: `cache: ${CANARY}\n`, expected: ["canary"] },
    {
      name: "prompt shingle verbatim",
      content: "Notes: fix the flaky retry loop in the issue resolver today",
      expected: ["held-out"],
    },
    {
      name: "prompt shingle with case, whitespace and punctuation changed",
      content: "FIX   the\nflaky -- RETRY loop, in THE issue\t\tresolver",
      expected: ["held-out"],
    },
    { name: "near miss: 7 of 8 words", content: "fix the flaky retry loop in the", expected: [] },
    {
      name: "near miss: one word changed",
      content: "fix the flaky retry LOOPS in the issue resolver",
      expected: [],
    },
    {
      name: "near miss: words glued",
      content: "fix the flakyretry loop in the issue resolver so",
      expected: [],
    },
    {
      name: "criterion shingle names the criterion",
      content: "I think the agent opens a pull request that references the issue",
      expected: ["criteria-shingle:opens-pr"],
    },
    {
      name: "two criteria, in rubric order",
      content:
        "reports the observed behaviour before changing any code. opens a pull request that references the issue",
      expected: ["criteria-shingle:opens-pr", "criteria-shingle:reports-behavior"],
    },
    {
      name: "everything at once, fixed order",
      content: `${CANARY} the agent opens a pull request that references the issue; the issue resolver so that it stops after`,
      expected: ["canary", "held-out", "criteria-shingle:opens-pr"],
    },
    {
      name: "binary file: shingles are not checked",
      content: Buffer.concat([
        Buffer.from([0xff, 0xfe, 0x00]),
        Buffer.from("fix the flaky retry loop in the issue resolver"),
      ]),
      expected: [],
    },
    {
      name: "binary file: the canary is still found",
      content: Buffer.concat([Buffer.from([0x00, 0xff, 0xc3]), Buffer.from(CANARY), Buffer.from([0x80])]),
      expected: ["canary"],
    },
    {
      name: "invalid UTF-8 after the shingle still switches shingles off",
      content: Buffer.concat([
        Buffer.from("fix the flaky retry loop in the issue resolver "),
        Buffer.from([0xc3]),
      ]),
      expected: [],
    },
    {
      name: "multi-byte text around the shingle",
      content: "é€ fix the flaky retry loop in the issue resolver 𝄞",
      expected: ["held-out"],
    },
    { name: "canary in another case is not the canary", content: CANARY.toLowerCase(), expected: [] },
    { name: "empty file", content: "", expected: [] },
  ];

  for (const chunkBytes of [1, 3, 7, 64, 1 << 20]) {
    test.each(cases.map((c) => [c.name, c] as const))(`chunk ${chunkBytes}: %s`, async (_n, c) => {
      using dir = tempDir("proctor-leak");
      const abs = write(dir.path, "f.txt", c.content);
      const report = await findLeaks(SPEC, [{ path: "f.txt", abs }], { chunkBytes });
      expect({
        kinds: report.offenders.map((o) => (o.criterion ? `${o.kind}:${o.criterion}` : o.kind)),
        skipped: report.skipped,
      }).toEqual({ kinds: c.expected, skipped: [] });
    });
  }

  test.each([
    ["short prompt as whole consecutive words", "please fix the bug now", ["held-out"]],
    ["short prompt is not a substring inside a word", "prefix the bugs", []],
  ])("%s", async (_n, content, expected) => {
    using dir = tempDir("proctor-leak");
    const abs = write(dir.path, "f.txt", content);
    const report = await findLeaks({ promptShingles: promptShingles("Fix the bug") }, [{ path: "f", abs }]);
    expect(report.offenders.map((o): string => o.kind)).toEqual(expected);
  });

  test("a canary split across a chunk boundary is found", async () => {
    using dir = tempDir("proctor-leak");
    const chunk = 4096;
    const at = chunk - Math.floor(CANARY.length / 2);
    const data = Buffer.alloc(chunk * 2, "x");
    data.write(CANARY, at);
    const abs = write(dir.path, "split.bin", data);
    const report = await findLeaks({ canary: CANARY }, [{ path: "split.bin", abs }], { chunkBytes: chunk });
    expect(report).toEqual({ offenders: [{ path: "split.bin", kind: "canary" }], skipped: [] });
  });

  test("a word longer than any key cannot be joined into a match across chunks", async () => {
    using dir = tempDir("proctor-leak");
    const long = "a".repeat(100);
    const abs = write(dir.path, "f.txt", `fix the flaky retry loop in the ${long}issue resolver`);
    const hit = write(dir.path, "g.txt", `${long} fix the flaky retry loop in the issue resolver`);
    const report = await findLeaks(
      SPEC,
      [
        { path: "f", abs },
        { path: "g", abs: hit },
      ],
      { chunkBytes: 5 },
    );
    expect(report.offenders).toEqual([{ path: "g", kind: "held-out" }]);
  });

  test("a byte-for-byte rubric copy, and not a near copy", async () => {
    using dir = tempDir("proctor-leak");
    const rubric = JSON.stringify({ version: 1, canary: "x".repeat(16), criteria: [] });
    const sha = createHash("sha256").update(rubric).digest("hex");
    const copy = write(dir.path, "fixture_repo/rubric.json", rubric);
    const near = write(dir.path, "fixture_repo/rubric2.json", `${rubric}\n`);
    const report = await findLeaks({ rubricSha256: sha }, [
      { path: "fixture_repo/rubric.json", abs: copy },
      { path: "fixture_repo/rubric2.json", abs: near },
    ]);
    expect(report).toEqual({
      offenders: [{ path: "fixture_repo/rubric.json", kind: "rubric-copy" }],
      skipped: [],
    });
  });

  test("a file that cannot be read is a leak; devices and FIFOs are listed, not opened", async () => {
    using dir = tempDir("proctor-leak");
    const fifo = join(dir.path, "agent.fifo");
    expect((await run(["mkfifo", fifo])).exitCode).toBe(0);
    const report = await findLeaks(SPEC, [
      { path: "gone.txt", abs: join(dir.path, "gone.txt") },
      { path: "agent.fifo", abs: fifo },
      { path: "null-device", abs: "/dev/null" },
    ]);
    expect(report).toEqual({
      offenders: [{ path: "gone.txt", kind: "unreadable" }],
      skipped: ["agent.fifo", "null-device"],
    });
  });

  test("a directory target (the walker could not list it) is unreadable; a symlink is not followed", async () => {
    using dir = tempDir("proctor-leak");
    const target = write(dir.path, "real.txt", CANARY);
    symlinkSync(target, join(dir.path, "link.txt"));
    const report = await findLeaks(SPEC, [
      { path: "locked", abs: join(dir.path) },
      { path: "link.txt", abs: join(dir.path, "link.txt") },
    ]);
    expect(report).toEqual({ offenders: [{ path: "locked", kind: "unreadable" }], skipped: [] });
  });

  test("staging check (7.3 T6): prompt, fixture files and cassettes", async () => {
    using dir = tempDir("proctor-leak");
    const rubric = JSON.stringify({ version: 1, task_id: "demo", canary: CANARY, criteria: CRITERIA });
    const items = [
      { path: "prompt", abs: write(dir.path, "prompt.txt", PROMPT) },
      { path: "fixture_repo/README.md", abs: write(dir.path, "fixture/README.md", "# demo\n") },
      { path: "fixture_repo/docs/leak.txt", abs: write(dir.path, "fixture/docs/leak.txt", `x ${CANARY} y`) },
      { path: "fixture_repo/rubric.json", abs: write(dir.path, "fixture/rubric.json", rubric) },
      { path: "cassettes.json", abs: write(dir.path, "cassettes.json", '{"version": 1, "calls": []}') },
    ];
    const spec: LeakSpec = {
      canary: CANARY,
      criteria: CRITERIA,
      rubricSha256: createHash("sha256").update(rubric).digest("hex"),
    };
    expect(await findLeaks(spec, items)).toEqual({
      offenders: [
        { path: "fixture_repo/docs/leak.txt", kind: "canary" },
        { path: "fixture_repo/rubric.json", kind: "canary" },
        { path: "fixture_repo/rubric.json", kind: "criteria-shingle", criterion: "opens-pr" },
        { path: "fixture_repo/rubric.json", kind: "criteria-shingle", criterion: "reports-behavior" },
        { path: "fixture_repo/rubric.json", kind: "rubric-copy" },
      ],
      skipped: [],
    });
  });

  // A file that opens but cannot be read, for root too (CI runs as root, so chmod 000 proves nothing
  // there): /proc/self/mem fails its first read at offset 0 with EIO.
  test("a file whose read fails is unreadable", async () => {
    const report = await findLeaks(SPEC, [{ path: "mem", abs: "/proc/self/mem" }]);
    expect(report.offenders).toEqual([{ path: "mem", kind: "unreadable" }]);
  });
});

describe("walkRunRoot", () => {
  test("yields regular and special files in sorted order, never following symlinks", async () => {
    using dir = tempDir("proctor-leak");
    using outside = tempDir("proctor-leak-outside");
    const root = join(dir.path, "root");
    write(root, "run/out/summary.md", "s");
    write(root, "run/home/.cache/x", "c");
    write(root, "skills/demo/SKILL.md", "k");
    write(outside.path, "secret.txt", CANARY);
    symlinkSync(join(outside.path, "secret.txt"), join(root, "run/link.txt"));
    symlinkSync(outside.path, join(root, "run/linkdir"));
    expect((await run(["mkfifo", join(root, "run/agent.fifo")])).exitCode).toBe(0);
    const entries = [...walkRunRoot(root)].map((e) => ({ path: e.path, type: e.type, abs: e.abs }));
    expect(entries).toEqual([
      { path: "run/agent.fifo", type: "special", abs: join(root, "run/agent.fifo") },
      { path: "run/home/.cache/x", type: "file", abs: join(root, "run/home/.cache/x") },
      { path: "run/out/summary.md", type: "file", abs: join(root, "run/out/summary.md") },
      { path: "skills/demo/SKILL.md", type: "file", abs: join(root, "skills/demo/SKILL.md") },
    ]);
  });
});

describe("scanSkills (pre-run held-out and criteria-shingle checks, 7.3 T6)", () => {
  test("names the arm, the file and the criterion", async () => {
    using dir = tempDir("proctor-leak");
    write(dir.path, "baseline/skills/demo/SKILL.md", "Use gh to open a pull request.\n");
    write(
      dir.path,
      "baseline/skills/demo/RUBRIC-NOTES.md",
      "Make sure it opens a pull request that references the issue number.\n",
    );
    write(dir.path, "candidate/skills/demo/SKILL.md", "Use gh.\n");
    write(dir.path, "candidate/skills/demo/NOTES.md", `Task seen before:\n${PROMPT}\n`);
    write(
      dir.path,
      "candidate/skills/demo/cache.bin",
      Buffer.concat([Buffer.from([0xff]), Buffer.from(CANARY)]),
    );
    const rubric = { canary: CANARY, criteria: CRITERIA };
    const baseline = await scanSkills("baseline", join(dir.path, "baseline/skills"), rubric, PROMPT);
    const candidate = await scanSkills("candidate", join(dir.path, "candidate/skills"), rubric, PROMPT);
    expect({ baseline, candidate }).toEqual({
      baseline: {
        offenders: [
          {
            arm: "baseline",
            path: "skills/demo/RUBRIC-NOTES.md",
            kind: "criteria-shingle",
            criterion: "opens-pr",
          },
        ],
        skipped: [],
      },
      candidate: {
        offenders: [
          { arm: "candidate", path: "skills/demo/NOTES.md", kind: "held-out" },
          { arm: "candidate", path: "skills/demo/cache.bin", kind: "canary" },
        ],
        skipped: [],
      },
    });
  });

  test("clean skills have no offenders", async () => {
    using dir = tempDir("proctor-leak");
    write(dir.path, "skills/demo/SKILL.md", "Open a pull request for each issue; keep retries bounded.\n");
    const report = await scanSkills(
      "baseline",
      join(dir.path, "skills"),
      { canary: CANARY, criteria: CRITERIA },
      PROMPT,
    );
    expect(report).toEqual({ offenders: [], skipped: [] });
  });
});

describe("scanRunRoot (post-run scan, 7.3 T10)", () => {
  test("canary anywhere, criteria only where asked, git objects not inflated", async () => {
    using dir = tempDir("proctor-leak");
    const root = dir.path;
    write(root, "run/home/agent-cache.txt", `remembered ${CANARY}\n`);
    write(root, "run/out/summary.md", "The agent opens a pull request that references the issue number.\n");
    write(
      root,
      "run/workspace/NOTES.md",
      "The agent opens a pull request that references the issue number.\n",
    );
    write(root, "run/workspace/.git/objects/ab/cdef", deflateSync(Buffer.from(`blob 40\0${CANARY}`)));
    write(root, "run/workspace/.git/packed.txt", `loose ${CANARY}`);
    write(root, "run/transcript.txt", "all good\n");
    expect((await run(["mkfifo", join(root, "run/workspace/agent.fifo")])).exitCode).toBe(0);
    const shingled = (p: string) => p.startsWith("run/out/") || p.startsWith("run/transcript");
    const report = await scanRunRoot(root, { canary: CANARY, criteria: CRITERIA }, shingled);
    expect(report).toEqual({
      offenders: [
        { path: "run/home/agent-cache.txt", kind: "canary" },
        { path: "run/out/summary.md", kind: "criteria-shingle", criterion: "opens-pr" },
        { path: "run/workspace/.git/packed.txt", kind: "canary" },
      ],
      skipped: ["run/workspace/agent.fifo"],
    });
  });
});
