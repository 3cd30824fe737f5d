// lib/ and scripts/ must run under Bun, Node 20 and Deno 2. Two proofs: a grep that finds Bun-only
// (and Deno-only) APIs nowhere but the seam, and the same commands run through single-file bundles
// under node and deno, with output identical to bun's.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { run } from "../lib/core/proc.ts";
import { bundlePath } from "./support/binary.ts";
import { tempDir } from "./support/tmp.ts";
import { BIN } from "./support/tools.ts";

const ROOT = join(import.meta.dirname, "..");
/** The seam itself. */
const EXEMPT = new Set(["lib/core/runtime.ts"]);

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(ROOT, dir, name);
    if (statSync(path).isDirectory()) return tsFiles(join(dir, name));
    return name.endsWith(".ts") ? [relative(ROOT, path)] : [];
  });
}

const FORBIDDEN = [
  { what: "Bun global", re: /\bBun\s*\./ },
  { what: "import from bun", re: /from\s+["']bun["']/ },
  { what: "bun: module", re: /["']bun:[a-z]+["']/ },
  { what: "import.meta.dir (use import.meta.dirname)", re: /import\.meta\.dir\b(?!name)/ },
  { what: "Deno global", re: /\bDeno\s*\./ },
];

describe("the runtime seam is the only place for Bun-only calls", () => {
  const files = [...tsFiles("lib"), ...tsFiles("scripts")].filter((f) => !EXEMPT.has(f));
  test("there are files to check", () => {
    expect(files.length).toBeGreaterThan(5);
  });
  test("no file outside lib/core/runtime.ts uses a Bun- or Deno-only API", () => {
    const offences = files.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      return FORBIDDEN.filter((f) => f.re.test(text)).map((f) => `${file}: ${f.what}`);
    });
    expect(offences).toEqual([]);
  });
  test("the grep itself catches an offender", () => {
    const hits = FORBIDDEN.filter((f) => f.re.test('const x = Bun.file("a"); import.meta.dir;')).map(
      (f) => f.what,
    );
    expect(hits).toEqual(["Bun global", "import.meta.dir (use import.meta.dirname)"]);
  });
});

describe("the same commands behave the same under bun, node and deno", () => {
  // Sources under Bun against the shipped bundles (dist/js/<tool>.js) under Node and Deno.
  // tests/dist/bundles.test.ts runs every tool's --help and the real jobs.
  const cases = [
    { name: "version", tool: "grade", args: ["--version"] },
    { name: "a conformant branch", tool: "grade", args: ["lint-branch", "fix/12-login-redirect"] },
    { name: "a bad branch", tool: "grade", args: ["lint-branch", "Bad/Branch_Name"] },
    // run-eval's bundle is also the gh it stages for the subject: `run-eval.js gh ...`.
    { name: "gh help needs no cassette", tool: "run-eval", args: ["gh", "--version"] },
    {
      name: "gh refuses a data command without --json",
      tool: "run-eval",
      args: ["gh", "issue", "view", "1"],
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      using dir = tempDir("proctor-portability");
      const bundle = await bundlePath(c.tool);
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path, NO_COLOR: "1" };
      const bunArgs = c.args[0] === "gh" ? c.args : [c.tool, ...c.args];
      const [bun, node, deno] = await Promise.all([
        run([BIN.bun, join(ROOT, "scripts/proctor.ts"), ...bunArgs], { env }),
        run([BIN.node, bundle, ...c.args], { env }),
        run([BIN.deno, "run", "-A", "--quiet", bundle, ...c.args], { env }),
      ]);
      const shape = (r: typeof bun) => ({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr });
      expect({ node: shape(node), deno: shape(deno) }).toEqual({ node: shape(bun), deno: shape(bun) });
    });
  }
});
