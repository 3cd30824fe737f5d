// The shell blocks of the docs (README.md and docs/*.md), and the sections tests read from them. The
// convention (tests/docs/blocks.test.ts holds every doc to it): each ```sh or ```bash block is run by a
// test, which the doc says in one of two ways.
//
//   <!-- NAME -->  ...blocks...  <!-- /NAME -->    (or <!-- NAME:start --> ... <!-- NAME:end -->)
//       A section: a test reads it with docSection("NAME") or sectionCommands("NAME") and runs its
//       commands as written (tests/docs/run-blocks.test.ts for the quick ones, or a lane's own test).
//   <!-- tested-by: tests/a.test.ts tests/support/b.ts -->    on the line right before the fence
//       For a block that needs Docker, the real CLIs, a cluster, credentials or a long run: the named
//       files (tests, .ci/run or a workflow) run these commands elsewhere, so together they must hold
//       each command's tool, subcommand and long flags (_words.ts); a renamed flag fails the claim.
//
// PROCTOR_DOCS_ROOT points every reader here at another tree with README.md and docs/ (a split not yet
// swapped in, say); the default is this checkout.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../support/tools.ts";

/** Where README.md and docs/ are read from. */
export const DOCS_ROOT = process.env.PROCTOR_DOCS_ROOT ?? REPO_ROOT;

/** One fenced ```sh or ```bash block. */
export interface ShellBlock {
  /** README.md or docs/<page>.md. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: "sh" | "bash";
  text: string;
  /** The files of a `tested-by` comment right before the fence, if there is one. */
  testedBy?: string[];
  /** The sections (innermost last) the block sits in. */
  sections: string[];
}

/** README.md, then docs/*.md by name, relative to root. */
export function docFiles(root = DOCS_ROOT): string[] {
  const docs = join(root, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ["README.md", ...pages];
}

const OPEN = /^<!-- ([a-z0-9-]+)(?::start)? -->$/;
const CLOSE = /^<!-- (?:\/([a-z0-9-]+)|([a-z0-9-]+):end) -->$/;
const TESTED_BY = /^<!-- tested-by: (.+) -->$/;

/** Every shell block of one doc's text, with its claim and sections. */
export function blocksOf(file: string, text: string): ShellBlock[] {
  const lines = text.split("\n");
  const blocks: ShellBlock[] = [];
  const open: string[] = [];
  let fence: { lang: string; line: number; body: string[] } | undefined;
  for (const [i, line] of lines.entries()) {
    if (fence) {
      if (line === "```") {
        if (fence.lang === "sh" || fence.lang === "bash") {
          const before = lines[fence.line - 2]?.match(TESTED_BY)?.[1];
          blocks.push({
            file,
            line: fence.line,
            lang: fence.lang,
            text: `${fence.body.join("\n")}\n`,
            ...(before !== undefined ? { testedBy: before.trim().split(/\s+/) } : {}),
            sections: [...open],
          });
        }
        fence = undefined;
      } else fence.body.push(line);
      continue;
    }
    const start = line.match(/^```(\S*)$/);
    if (start) {
      fence = { lang: start[1] ?? "", line: i + 1, body: [] };
      continue;
    }
    const close = line.match(CLOSE);
    if (close) {
      const name = close[1] ?? close[2];
      if (open.at(-1) !== name) throw new Error(`${file}:${i + 1}: closes section "${name}", not open`);
      open.pop();
      continue;
    }
    const o = line.match(OPEN)?.[1];
    if (o !== undefined) open.push(o);
  }
  if (fence) throw new Error(`${file}:${fence.line}: a fence that never closes`);
  if (open.length > 0) throw new Error(`${file}: section "${open.at(-1)}" never closes`);
  return blocks;
}

/** Every shell block of every doc under root. */
export function shellBlocks(root = DOCS_ROOT): ShellBlock[] {
  return docFiles(root).flatMap((f) => blocksOf(f, readFileSync(join(root, f), "utf8")));
}

/** A section's text (between its markers) and the doc it is in; exactly one doc must hold it. */
export function docSection(name: string, root = DOCS_ROOT): { file: string; text: string } {
  const found = docFiles(root).flatMap((file) => {
    const text = readFileSync(join(root, file), "utf8");
    const open = [`<!-- ${name} -->\n`, `<!-- ${name}:start -->\n`].find((m) => text.includes(m));
    if (open === undefined) return [];
    const start = text.indexOf(open) + open.length;
    const end = Math.max(text.indexOf(`<!-- /${name} -->`), text.indexOf(`<!-- ${name}:end -->`));
    if (end < start) throw new Error(`${file}: section "${name}" never closes`);
    return [{ file, text: text.slice(start, end) }];
  });
  if (found.length !== 1)
    throw new Error(
      `Cannot find section "${name}" once in ${root} (README.md, docs/*.md): found ${found.length}`,
    );
  return found[0]!;
}

/** The shell commands of a section's blocks, in order, joined: what a reader would paste. */
export function sectionCommands(name: string, root = DOCS_ROOT): string {
  const { file, text } = docSection(name, root);
  const blocks = blocksOf(file, text).map((b) => b.text);
  if (blocks.length === 0) throw new Error(`${file}: section "${name}" holds no sh or bash block`);
  return blocks.join("\n");
}

/** The doc holding the heading that starts with `title` (at any level), from that heading on. */
export function fromHeading(title: string, root = DOCS_ROOT): { file: string; text: string } {
  const found = docFiles(root).flatMap((file) => {
    const text = readFileSync(join(root, file), "utf8");
    const at = text.search(new RegExp(`^#+ ${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "m"));
    return at < 0 ? [] : [{ file, text: text.slice(at) }];
  });
  if (found.length !== 1)
    throw new Error(
      `Cannot find heading "${title}" once in ${root} (README.md, docs/*.md): found ${found.length}`,
    );
  return found[0]!;
}
