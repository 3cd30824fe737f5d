// Whether every shell block of the docs is run by a test (the convention: _blocks.ts). Pure: the
// blocks and the checkout's files come in, one line per problem goes out, so tests/docs/blocks.test.ts
// runs it on the real docs and on planted ones.
import type { ShellBlock } from "./_blocks.ts";
import { commandWords } from "./_words.ts";

/** What a `tested-by` comment may name: a test or its support, CI's entry point, a workflow. */
const CLAIMABLE = /^(?:tests\/[\w./-]+\.ts|\.ci\/run|\.github\/workflows\/[\w.-]+\.ya?ml)$/;

/** The checkout's files a claim can name or a section reader can be: path -> text. */
export type Files = ReadonlyMap<string, string>;

/**
 * The test files that read section `name`: they use docSection or sectionCommands, and pass `"name"`
 * as the first argument of a call (the helper's, or their own that hands it on).
 */
export function sectionReaders(name: string, files: Files): string[] {
  const call = new RegExp(`\\w\\(\\s*"${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`);
  return [...files]
    .filter(
      ([path, text]) =>
        path.startsWith("tests/") && /\b(?:docSection|sectionCommands)\(/.test(text) && call.test(text),
    )
    .map(([path]) => path)
    .sort();
}

const where = (b: ShellBlock) => `${b.file}:${b.line}`;

/** One line per block that no test runs, or whose claim does not hold; [] when all is well. */
export function claimProblems(blocks: readonly ShellBlock[], files: Files): string[] {
  const problems: string[] = [];
  const read = new Map<string, boolean>();
  const isRead = (name: string) => {
    if (!read.has(name)) read.set(name, sectionReaders(name, files).length > 0);
    return read.get(name) === true;
  };
  for (const b of blocks) {
    for (const name of b.sections.filter((s) => !isRead(s)))
      problems.push(
        `${where(b)}: section "${name}" is read by no test (docSection("${name}") or sectionCommands("${name}"))`,
      );
    if (b.testedBy === undefined) {
      if (b.sections.length === 0)
        problems.push(
          `${where(b)}: no test runs this block: put it in a section a test runs, or name the test with <!-- tested-by: FILE -->`,
        );
      continue;
    }
    const bad = b.testedBy.filter((f) => !CLAIMABLE.test(f) || !files.has(f));
    for (const f of bad)
      problems.push(
        `${where(b)}: tested-by names "${f}", ${CLAIMABLE.test(f) ? "which does not exist" : "which is not a test, .ci/run or a workflow"}`,
      );
    if (bad.length > 0) continue;
    const words = commandWords(b.text);
    if (words.length === 0) {
      problems.push(
        `${where(b)}: tested-by on a block with no command to check: put it in a section a test runs`,
      );
      continue;
    }
    const text = b.testedBy.map((f) => files.get(f)).join("\n");
    const missing = words.filter((w) => !text.includes(w));
    if (missing.length > 0)
      problems.push(`${where(b)}: ${missing.join(", ")}: in the block, not in ${b.testedBy.join(" ")}`);
  }
  return problems;
}
