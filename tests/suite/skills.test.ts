// A variant's skills and instructions loaded from the working tree or a git revision: the Agent
// Skills layout (a folder of skill folders, or one skill folder), front matter checked, links,
// binaries, escapes and missing revisions refused with one line, and the digest moving with content.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import {
  guidanceFiles,
  loadGuidance,
  loadInstructions,
  loadSkills,
  skillFrontMatter,
} from "../../lib/suite/skills.ts";
import { tempDir } from "../support/tmp.ts";

const SKILL = (name: string, body = "Run the tests first.") =>
  `---\nname: ${name}\ndescription: Fix failing tests. Use when a test suite fails.\n---\n\n${body}\n`;

function put(root: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

async function git(dir: string, ...args: string[]) {
  const r = await run(["git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
}

test("a folder of skills, each its folder's name, scripts keep their exec bit; a README beside them is ignored", () => {
  using dir = tempDir("skills");
  put(dir.path, {
    "suites/s.yaml": "",
    "suites/skills/README.md": "not a skill",
    "suites/skills/fix-tests/SKILL.md": SKILL("fix-tests"),
    "suites/skills/fix-tests/scripts/run.sh": "#!/bin/sh\nnpm test\n",
    "suites/skills/write-docs/SKILL.md": SKILL("write-docs", "Write docs."),
  });
  chmodSync(join(dir.path, "suites/skills/fix-tests/scripts/run.sh"), 0o755);
  // Outside git a path stays inside the suite's directory; in a repository, inside the repository.
  expect(loadSkills(join(dir.path, "suites"), "skills")).toEqual([
    {
      name: "fix-tests",
      description: "Fix failing tests. Use when a test suite fails.",
      files: [
        { path: "SKILL.md", text: SKILL("fix-tests"), executable: false },
        { path: "scripts/run.sh", text: "#!/bin/sh\nnpm test\n", executable: true },
      ],
    },
    {
      name: "write-docs",
      description: "Fix failing tests. Use when a test suite fails.",
      files: [{ path: "SKILL.md", text: SKILL("write-docs", "Write docs."), executable: false }],
    },
  ]);
});

test("one skill folder on its own", () => {
  using dir = tempDir("skills-one");
  put(dir.path, { "fix-tests/SKILL.md": SKILL("fix-tests") });
  expect(loadSkills(dir.path, "fix-tests").map((s) => s.name)).toEqual(["fix-tests"]);
});

test.each<{
  name: string;
  files: Record<string, string>;
  path?: string;
  link?: [string, string];
  error: string;
}>([
  {
    name: "no SKILL.md in a skill folder",
    files: { "skills/a/notes.md": "x" },
    error: "skills: skills/a: no SKILL.md",
  },
  {
    name: "no front matter",
    files: { "skills/a/SKILL.md": "# A\n" },
    error: "skills: skills/a/SKILL.md: expected front matter (--- name: ... description: ... ---) at the top",
  },
  {
    name: "a name that is not the folder's",
    files: { "skills/a/SKILL.md": SKILL("b") },
    error: 'skills: skills/a/SKILL.md: name: expected "a" (the folder\'s name), got "b"',
  },
  {
    name: "an invalid name",
    files: { "skills/Fix_Tests/SKILL.md": SKILL("Fix_Tests") },
    error:
      'skills: skills/Fix_Tests/SKILL.md: name: expected lowercase letters, digits and hyphens (at most 64), got "Fix_Tests"',
  },
  {
    name: "no description",
    files: { "skills/a/SKILL.md": "---\nname: a\n---\n" },
    error: "skills: skills/a/SKILL.md: description: expected what the skill does and when to use it",
  },
  {
    name: "a binary file",
    files: { "skills/a/SKILL.md": SKILL("a"), "skills/a/logo.png": "\u0000PNG" },
    error: "skills: skills/a: logo.png: not UTF-8 text (skills carry instructions and scripts, not binaries)",
  },
  {
    name: "a path leaving the suite's directory",
    files: { "x/SKILL.md": SKILL("x") },
    path: "../../etc",
    error: "leaves the suite's directory",
  },
  {
    name: "a link, even inside",
    files: { "skills/a/SKILL.md": SKILL("a") },
    link: ["/etc/passwd", "skills/a/passwd"],
    error: "a link (links are refused: copy the file in)",
  },
  { name: "nothing there", files: {}, path: "nope", error: "no such file or directory" },
])("refused: $name", ({ files, path, link, error }) => {
  using dir = tempDir("skills-bad");
  put(dir.path, files);
  if (link) symlinkSync(link[0], join(dir.path, link[1]));
  expect(() => loadSkills(dir.path, path ?? "skills")).toThrow(error);
});

test("front matter: quoted values, CRLF", () => {
  expect(skillFrontMatter("---\r\nname: \"a-b\"\r\ndescription: 'Does a.'\r\n---\r\nbody", "f")).toEqual({
    name: "a-b",
    description: "Does a.",
  });
});

test("from a git revision: main's skills and the working tree's differ, and so do their digests", async () => {
  using dir = tempDir("skills-git");
  put(dir.path, {
    "evals/suites/s.yaml": "",
    "skills/fix-tests/SKILL.md": SKILL("fix-tests", "v1"),
    "CLAUDE.md": "be brief\n",
  });
  await git(dir.path, "init", "-q", "-b", "main");
  await git(dir.path, "add", ".");
  await git(dir.path, "commit", "-q", "-m", "v1");
  put(dir.path, { "skills/fix-tests/SKILL.md": SKILL("fix-tests", "v2"), "CLAUDE.md": "be thorough\n" });
  const suiteDir = join(dir.path, "evals/suites");
  const base = loadGuidance(
    suiteDir,
    { skills: { path: "../../skills", ref: "main" }, instructions: { path: "../../CLAUDE.md", ref: "main" } },
    "variant base",
  )!;
  const head = loadGuidance(
    suiteDir,
    { skills: "../../skills", instructions: "../../CLAUDE.md" },
    "variant pr",
  )!;
  expect({
    base: [base.skills![0]!.files[0]!.text.includes("v1"), base.instructions],
    head: [head.skills![0]!.files[0]!.text.includes("v2"), head.instructions],
    differ: base.digest !== head.digest,
    missing: (() => {
      try {
        loadInstructions(suiteDir, { path: "../../CLAUDE.md", ref: "no-such-branch" });
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    })(),
  }).toEqual({
    base: [true, "be brief\n"],
    head: [true, "be thorough\n"],
    differ: true,
    missing: "instructions: no-such-branch:CLAUDE.md: not in the repository at that revision",
  });
});

test("where a harness reads them: one folder per skill, the instruction file, modes kept", () => {
  const files = guidanceFiles(
    {
      skills: [
        {
          name: "a",
          description: "d",
          files: [
            { path: "SKILL.md", text: "s", executable: false },
            { path: "run.sh", text: "r", executable: true },
          ],
        },
      ],
      instructions: "i",
      digest: "sha256:x",
    },
    { skillsDir: "/tmp/home/.claude/skills", instructionsFile: "/tmp/home/.claude/CLAUDE.md" },
  );
  expect(files).toEqual([
    { path: "/tmp/home/.claude/skills/a/SKILL.md", content: "s", mode: 0o600 },
    { path: "/tmp/home/.claude/skills/a/run.sh", content: "r", mode: 0o700 },
    { path: "/tmp/home/.claude/CLAUDE.md", content: "i", mode: 0o600 },
  ]);
});
