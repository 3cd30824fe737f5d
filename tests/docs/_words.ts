// What a shell block runs, as the words a test that claims it must contain: per command, its tool
// (after `proctor`, `npx`, `bun`, `node` and assignments; a script by its file name), the subcommand of a tool that has them,
// and every long flag. Heredoc bodies, comments, quoted arguments, redirections and placeholders
// (`<id>`, `...`) are not words. A coarse guard against drift, not a shell parser: a flag renamed in
// the doc and not in its test, or a command added to a claimed block, fails the claim.

/** Programs whose next plain word is a subcommand worth naming. */
const WITH_SUBCOMMANDS = new Set([
  "agent-eval",
  "eval-steps",
  "eval-mcp",
  "gh",
  "gh-shim",
  "grade",
  "run-eval",
  "mock-model",
  "npm",
  "git",
  "docker",
  "kubectl",
  "claude",
  "codex",
  "gemini",
]);

/** Shell plumbing: neither it nor its flags say what the block is about. */
const PLUMBING = new Set(
  "cd cat printf echo mkdir export read kill exec set rm test true false tar sha256sum head tail sed ls cp mv chmod wait sleep grep awk tee env sudo time bash sh openssl".split(
    " ",
  ),
);

/** Runners: the program is the script they run. */
const RUNNERS = new Set(["proctor", "npx", "bun", "node", "deno"]);

/** The block with heredoc bodies removed, continuations joined and comments dropped. */
function commandText(block: string): string {
  const lines = block.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? "";
    const heredoc = line.match(/<<-?\s*['"]?(\w+)['"]?/);
    if (heredoc) {
      while (i + 1 < lines.length && lines[i + 1] !== heredoc[1]) i++;
      i++;
      line = line.replace(heredoc[0], "");
    }
    out.push(line);
  }
  return out.join("\n").replace(/\\\n/g, " ").split("\n").map(stripComment).join("\n");
}

/** The line up to an unquoted `#` that starts a word. */
function stripComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return line.slice(0, i);
  }
  return line;
}

/** Words (quoted ones marked by a leading quote) and separators of one text. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let word = "";
  let quoted = false;
  let quote = "";
  const flush = () => {
    if (word !== "" || quoted) out.push(quoted ? `'${word}` : word);
    word = "";
    quoted = false;
  };
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = "";
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      quoted = true;
    } else if (c === "&" && /[<>]$/.test(word)) word += c;
    else if ("|&;()`\n".includes(c)) {
      flush();
      out.push(";");
    } else if (/\s/.test(c)) flush();
    else word += c;
  }
  flush();
  return out;
}

/** The words of one command (its tokens up to a separator). */
function wordsOf(command: string[]): string[] {
  const args = command.filter((t, i) => {
    const prev = command[i - 1] ?? "";
    const redirect = /^\d*[<>]+&?\d*$/;
    return !redirect.test(t) && !(redirect.test(prev) && /[<>]$/.test(prev)) && !/^\d*[<>]/.test(t);
  });
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i] ?? "")) i++;
  while (i < args.length && ["exec", "sudo", "env", "time"].includes(args[i] ?? "")) i++;
  while (i < args.length && RUNNERS.has(args[i] ?? "")) {
    i++;
    while (i < args.length && ((args[i] ?? "").startsWith("-") || args[i] === "run")) i++;
  }
  // A script is named by its file, without the folder or the extension: evals/images/build.ts -> build.
  const program =
    (args[i] ?? "")
      .split("/")
      .at(-1)
      ?.replace(/\.(?:[cm]?[jt]s|sh)$/, "") ?? "";
  if (program === "" || program.startsWith("'") || program.startsWith("$")) return [];
  const words: string[] = [];
  if (!PLUMBING.has(program)) {
    words.push(program);
    const sub = args[i + 1];
    if (WITH_SUBCOMMANDS.has(program) && sub !== undefined && /^[a-z][a-z0-9-]*$/.test(sub)) words.push(sub);
    // `npm run build`: the script is the command.
    const script = args[i + 2];
    if (program === "npm" && sub === "run" && script !== undefined && !script.startsWith("-"))
      words.push(script);
    for (const a of args.slice(i + 1)) {
      const flag = a.replace(/^\[/, "").match(/^--[a-z][a-z0-9-]*/)?.[0];
      if (flag !== undefined) words.push(flag);
    }
  }
  return words;
}

/** The words a test running `block` must contain, in order of appearance, each once. */
export function commandWords(block: string): string[] {
  const all: string[] = [];
  let command: string[] = [];
  for (const t of [...tokens(commandText(block)), ";"]) {
    if (t === ";") {
      all.push(...wordsOf(command));
      command = [];
    } else command.push(t);
  }
  return [...new Set(all)];
}
