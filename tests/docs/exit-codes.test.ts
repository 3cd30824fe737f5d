// docs/exit-codes.md has a row for every command the tools have (issue 26: the table lacked commands,
// and suite's 3 and merge's 2 had been missing), read from the entries' own citty trees.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { allCommands } from "../support/commands.ts";
import { REPO_ROOT } from "../support/tools.ts";

/** The commands a row names: `agent-eval lock, run, verify` is three, `grade lint-* (...)` a prefix. */
function rowNames(cell: string): string[] {
  const plain = cell.replace(/\s*\(.*\)$/, "").replace(/`/g, "");
  const [first = "", ...rest] = plain.split(", ");
  const tool = first.split(" ").slice(0, -1).join(" ");
  return [first, ...rest.map((r) => (tool ? `${tool} ${r}` : r))];
}

test("every command has its row in docs/exit-codes.md", async () => {
  const text = readFileSync(join(REPO_ROOT, "docs", "exit-codes.md"), "utf8");
  const rows = [...text.matchAll(/^\| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({
    names: rowNames((m[1] ?? "").trim()),
    codes: (m[2] ?? "").trim(),
  }));
  const covered = (path: string) =>
    rows.some((r) =>
      r.names.some(
        (n) =>
          n === path ||
          (n.endsWith("*") && path.startsWith(n.slice(0, -1))) ||
          // gh-shim replay is gh itself: the `gh-shim (as gh)` row
          (path === "gh-shim replay" && n === "gh-shim"),
      ),
    );
  const commands = (await allCommands()).filter((c) => c.command.run !== undefined);
  const codes = (name: string) => rows.find((r) => r.names.includes(name))?.codes ?? "";
  expect({
    missing: commands.map((c) => c.path).filter((p) => !covered(p)),
    suiteGate: codes("agent-eval suite").includes("3 `--fail-on` tripped"),
    mergeRefused: codes("agent-eval suite merge").includes("2 refused"),
  }).toEqual({ missing: [], suiteGate: true, mergeRefused: true });
});
