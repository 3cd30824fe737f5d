#!/usr/bin/env bun
// Build script (Bun-only, never shipped, so it is exempt from the runtime seam). Compiles the one
// multi-call binary `proctor` for each target, writes dist/SHA256SUMS in sha256sum format, and for
// the host target lays links named after every tool in dist/bin/ so `dist/bin/gh` is the shim.
//   bun run build                 host target only
//   bun run build --all           every release target
//   bun run build --bundles       also single-file Node and Deno bundles (dist/proctor.node.mjs, proctor.deno.mjs)
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");
const ENTRY = join(ROOT, "scripts/proctor.ts");

/** Names the binary answers to (see scripts/proctor.ts). */
export const LINKS = ["gh", "gh-shim", "grade", "run-eval", "agent-eval", "eval-steps", "eval-mcp"] as const;

const TARGETS = [
  "bun-linux-x64",
  "bun-linux-arm64",
  "bun-darwin-x64",
  "bun-darwin-arm64",
  "bun-windows-x64",
] as const satisfies readonly Bun.Build.CompileTarget[];

function hostTarget(): (typeof TARGETS)[number] {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `bun-${os}-${process.arch}` as (typeof TARGETS)[number];
}

async function compile(target: (typeof TARGETS)[number], outfile: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    compile: { target, outfile, autoloadDotenv: false, autoloadBunfig: false },
    // Precompiled bytecode cuts the binary's start by about a third (59 -> 41 ms here), and every
    // replayed gh call pays that start. ESM keeps top-level await in the entries.
    bytecode: true,
    format: "esm",
    // Keep function names (stack traces stay readable) but drop whitespace and dead code.
    minify: { syntax: true, whitespace: true, identifiers: false },
    define: { BUILD_VERSION: JSON.stringify(pkg.version) },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`Cannot compile ${target}`);
  }
}

async function bundle(target: "node" | "deno"): Promise<string> {
  const outfile = join(DIST, `proctor.${target}.mjs`);
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "node", // Deno runs Node-targeted ESM with npm: built-ins resolved as node:*
    format: "esm",
    minify: { syntax: true, whitespace: true, identifiers: false },
    define: { BUILD_VERSION: JSON.stringify(pkg.version) },
  });
  if (!result.success || !result.outputs[0]) throw new Error(`Cannot bundle for ${target}`);
  writeFileSync(outfile, `#!/usr/bin/env ${target}\n${await result.outputs[0].text()}`, { mode: 0o755 });
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
