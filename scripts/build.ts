#!/usr/bin/env bun
// Build script (never shipped). Drives the `bun build` CLI as a child process, so like every other
// script it uses no Bun API and needs no exemption from the runtime seam. Compiles the one
// multi-call binary `proctor` for each target, writes dist/SHA256SUMS in sha256sum format, and for
// the host target lays links named after every tool in dist/bin/ so `dist/bin/gh` is the shim.
//   bun run build                 host target only
//   bun run build --all           every release target
//   bun run build --bundles       also single-file Node and Deno bundles (dist/proctor.node.mjs, proctor.deno.mjs)
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../lib/proc.ts";
import { runtimeName } from "../lib/runtime.ts";
import pkg from "../package.json" with { type: "json" };

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");
const ENTRY = join(ROOT, "scripts/proctor.ts");
/** The bun CLI does the compiling, so this script itself needs no Bun API (it runs under node too). */
const BUN = runtimeName() === "bun" ? process.execPath : join(ROOT, "node_modules", ".bin", "bun");

/** Names the binary answers to (see scripts/proctor.ts). */
export const LINKS = ["gh", "gh-shim", "grade", "run-eval", "agent-eval", "eval-steps", "eval-mcp"] as const;

const TARGETS = [
  "bun-linux-x64",
  "bun-linux-arm64",
  "bun-darwin-x64",
  "bun-darwin-arm64",
  "bun-windows-x64",
] as const;

/** Flags every artifact shares: names kept in stack traces, whitespace and dead code dropped, one version. */
const COMMON = [
  "--minify-syntax",
  "--minify-whitespace",
  `--define=BUILD_VERSION=${JSON.stringify(pkg.version)}`,
];

function hostTarget(): (typeof TARGETS)[number] {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `bun-${os}-${process.arch}` as (typeof TARGETS)[number];
}

async function bunBuild(args: string[], what: string): Promise<void> {
  const r = await run([BUN, "build", ENTRY, ...COMMON, ...args], { cwd: ROOT });
  if (r.exitCode !== 0) {
    process.stderr.write(r.stderr);
    throw new Error(`Cannot build ${what}: bun build exited ${r.exitCode}`);
  }
}

function compile(target: (typeof TARGETS)[number], outfile: string): Promise<void> {
  // Precompiled bytecode cuts the binary's start by about a third (59 -> 41 ms here), and every
  // replayed gh call pays that start. ESM keeps top-level await in the entries. Tools that run inside
  // other people's repositories must not pick up their .env or bunfig.toml.
  return bunBuild(
    [
      "--compile",
      `--target=${target}`,
      "--bytecode",
      "--format=esm",
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      `--outfile=${outfile}`,
    ],
    target,
  );
}

async function bundle(target: "node" | "deno"): Promise<string> {
  const outfile = join(DIST, `proctor.${target}.mjs`);
  // Deno runs Node-targeted ESM with node: built-ins as they are.
  await bunBuild(["--target=node", "--format=esm", `--outfile=${outfile}`], `the ${target} bundle`);
  // The entry's own `#!/usr/bin/env bun` line survives bundling: replace it with this runtime's.
  const code = readFileSync(outfile, "utf8").replace(/^#!.*\n/, "");
  writeFileSync(outfile, `#!/usr/bin/env ${target}\n${code}`);
  chmodSync(outfile, 0o755);
  return outfile;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

const args = new Set(process.argv.slice(2));
const targets = args.has("--all") ? TARGETS : [hostTarget()];
mkdirSync(DIST, { recursive: true });
const built: string[] = [];
for (const target of targets) {
  const name = `proctor-${target.replace(/^bun-/, "")}${target.includes("windows") ? ".exe" : ""}`;
  await compile(target, join(DIST, name));
  built.push(name);
  process.stderr.write(`built dist/${name}\n`);
}
if (args.has("--bundles")) {
  for (const t of ["node", "deno"] as const) built.push((await bundle(t)).slice(DIST.length + 1));
}
// The host binary under its plain name, and a link per tool.
const host = `proctor-${hostTarget().replace(/^bun-/, "")}`;
if (built.includes(host)) {
  rmSync(join(DIST, "proctor"), { force: true });
  symlinkSync(host, join(DIST, "proctor"));
  const bin = join(DIST, "bin");
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin);
  for (const link of LINKS) symlinkSync(join("..", host), join(bin, link));
}
const sums = readdirSync(DIST)
  .filter((f) => built.includes(f))
  .sort()
  .map((f) => `${sha256(join(DIST, f))}  ${f}\n`)
  .join("");
writeFileSync(join(DIST, "SHA256SUMS"), sums);
process.stderr.write(`wrote dist/SHA256SUMS (${built.length} files)\n`);
