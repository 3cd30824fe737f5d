// Every ```sh and ```bash block of README.md and docs/*.md is run by a test: in a section a test reads
// and runs, or under a `tested-by` comment whose files hold its commands (the convention: _blocks.ts).
// PROCTOR_DOCS_ROOT=DIR checks another tree's README.md and docs/ against this checkout's tests.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../support/tools.ts";
import { blocksOf, DOCS_ROOT, docSection, sectionCommands, shellBlocks } from "./_blocks.ts";
import { claimProblems, type Files, sectionReaders } from "./_claims.ts";
import { commandWords } from "./_words.ts";

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "fixtures" || name === "node_modules") return [];
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** The files a claim may name, and the test files that may read a section (this file's tables aside). */
function checkoutFiles(): Files {
  const workflows = join(REPO_ROOT, ".github", "workflows");
  const paths = [
    ...walk(join(REPO_ROOT, "tests")).filter((p) => p.endsWith(".ts") && p !== import.meta.filename),
    join(REPO_ROOT, ".ci", "run"),
    ...(existsSync(workflows) ? walk(workflows) : []),
  ];
  return new Map(paths.filter(existsSync).map((p) => [relative(REPO_ROOT, p), readFileSync(p, "utf8")]));
}

describe(`the docs under ${DOCS_ROOT}`, () => {
  test("every shell block is run by a test, and every claim holds", () => {
    const blocks = shellBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    expect(claimProblems(blocks, checkoutFiles())).toEqual([]);
  });
});

const FILES: Files = new Map([
  ["tests/a.test.ts", 'runs(["grade", "lint", "--json"]); docSection("demo-section");'],
  ["tests/b.test.ts", "// nothing here"],
  [".ci/run", "npm ci\nnpm test\n"],
]);

const doc = (before: string, body = "proctor grade lint --json evals/cases/x") =>
  `# Doc\n\n${before}\n\`\`\`sh\n${body}\n\`\`\`\n`;

describe("the checks fail when a block is not run", () => {
  test.each([
    { name: "a claim that holds", text: doc("<!-- tested-by: tests/a.test.ts -->"), problems: [] },
    {
      name: "a section a test reads",
      text: `<!-- demo-section -->\n${doc("", "set -e\ncat x")}<!-- /demo-section -->\n`,
      problems: [],
    },
    {
      name: "no claim and no section",
      text: doc("Some prose."),
      problems: [
        "README.md:4: no test runs this block: put it in a section a test runs, or name the test with <!-- tested-by: FILE -->",
      ],
    },
    {
      name: "a flag the claiming test does not have",
      text: doc("<!-- tested-by: tests/a.test.ts -->", "proctor grade lint --jsonl x"),
      problems: ["README.md:4: --jsonl: in the block, not in tests/a.test.ts"],
    },
    {
      name: "a command the claiming test does not run",
      text: doc("<!-- tested-by: tests/a.test.ts -->", "proctor grade lint x\nproctor run-eval -j 2 x/y"),
      problems: ["README.md:4: run-eval: in the block, not in tests/a.test.ts"],
    },
    {
      name: "a claim naming a file that is gone, or is no test",
      text: doc("<!-- tested-by: tests/gone.test.ts lib/x.ts -->"),
      problems: [
        'README.md:4: tested-by names "tests/gone.test.ts", which does not exist',
        'README.md:4: tested-by names "lib/x.ts", which is not a test, .ci/run or a workflow',
      ],
    },
    {
      name: "a section no test reads",
      text: `<!-- other-section -->\n${doc("")}<!-- /other-section -->\n`,
      problems: [
        'README.md:5: section "other-section" is read by no test (docSection("other-section") or sectionCommands("other-section"))',
      ],
    },
    {
      name: "a claim on a block with nothing to check",
      text: doc("<!-- tested-by: .ci/run -->", "bash .ci/run"),
      problems: [
        "README.md:4: tested-by on a block with no command to check: put it in a section a test runs",
      ],
    },
  ])("$name", ({ text, problems }) => {
    expect(claimProblems(blocksOf("README.md", text), FILES)).toEqual([...problems]);
  });

  test("a section is read only by a test that reads it through the helpers", () => {
    expect([sectionReaders("demo-section", FILES), sectionReaders("lint", FILES)]).toEqual([
      ["tests/a.test.ts"],
      [],
    ]);
  });
});

describe("what a block's commands are", () => {
  test.each([
    {
      block: "proctor run-eval -j 2 --junit junit.xml evals/cases   # a comment --not-a-flag\n",
      words: ["run-eval", "--junit"],
    },
    {
      block: "export K=1 ANTHROPIC_API_KEY=...\nagent-eval run --task-id <id> \\\n  --agent-config a.json\n",
      words: ["agent-eval", "run", "--task-id", "--agent-config"],
    },
    {
      block: "cat > s.yaml <<'EOF'\nrun-eval --inside-heredoc\nEOF\nnpm ci && npm run examples\n",
      words: ["npm", "ci", "run", "examples"],
    },
    {
      block: 'exec 3< <(proctor mock-model --replies r.yaml)\nread -r URL <&3\nkill "$PID" 2>&1\n',
      words: ["mock-model", "--replies"],
    },
    {
      block: "npx bun evals/images/build.ts --harness all\nproctor grade --case c --out o [--json]\n",
      words: ["build", "--harness", "grade", "--case", "--out", "--json"],
    },
    {
      block: "echo '{\"a\": 1} --quoted' | proctor grade runlog --echo\n",
      words: ["grade", "runlog", "--echo"],
    },
  ])("$block", ({ block, words }) => {
    expect(commandWords(block)).toEqual([...words]);
  });
});

describe("sections", () => {
  const text = [
    "# Doc",
    "<!-- demo:start -->",
    "```bash",
    "echo one",
    "```",
    "<!-- demo:end -->",
    "<!-- outer -->",
    "```sh",
    "echo two",
    "```",
    "<!-- inner -->",
    "```bash",
    "echo three",
    "```",
    "<!-- /inner -->",
    "<!-- /outer -->",
    "",
  ].join("\n");

  test("a block knows the sections it sits in", () => {
    expect(blocksOf("README.md", text).map((b) => [b.line, b.sections])).toEqual([
      [3, ["demo"]],
      [8, ["outer"]],
      [12, ["outer", "inner"]],
    ]);
  });

  test("a section that never closes, or closes another, is an error", () => {
    expect(() => blocksOf("README.md", "<!-- a -->\n```sh\nx\n```\n")).toThrow('section "a" never closes');
    expect(() => blocksOf("README.md", "<!-- a -->\n<!-- /b -->\n")).toThrow('closes section "b"');
  });

  test("docSection and sectionCommands find a section in README.md or docs/", () => {
    // This checkout's README holds the quickstart; a split tree holds it too (README.md either way).
    expect(docSection("quickstart").file).toEqual("README.md");
    expect(sectionCommands("quickstart")).toContain("npm run quickstart");
  });
});
