#!/usr/bin/env bun
// Build script (never shipped). Drives the `bun build` CLI as a child process, so like every other
// script it uses no Bun API and needs no exemption from the runtime seam.
//   bun run build                 the host binary: dist/proctor-<os>-<arch>, dist/proctor, dist/bin/<tool> links
//   bun run build --all           every release target, each also as dist/proctor-<os>-<arch>.tar.gz
//   bun run build --archives      the host binary and its archive (what the action's local test installs)
//   bun run build --bundles       only the single-file ESM bundles dist/js/<tool>.js for Node 20 and Deno 2
//   --outdir=DIR                  write to DIR instead of dist/ (the reproducibility test builds twice)
//   --no-bytecode                 no precompiled bytecode (tests/bench/dist.ts measures what it buys)
// Every run rewrites dist/SHA256SUMS (sha256sum format) over the artifacts present in dist/.
// Reproducible: the same commit, Bun version and SOURCE_DATE_EPOCH give byte-identical binaries,
// archives and bundles, whatever the checkout path (tests/build.test.ts builds twice and compares).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { ToolError, UsageError } from "../lib/core/errors.ts";
import { writeFileAtomic } from "../lib/core/fsx.ts";
import { sha256FileSync } from "../lib/core/hash.ts";
import { run } from "../lib/core/proc.ts";
import { isMain, runtimeName } from "../lib/core/runtime.ts";
import pkg from "../package.json" with { type: "json" };
import { releaseArchive } from "./build/archive.ts";

const ROOT = join(import.meta.dirname, "..");
/** The bun CLI does the compiling, so this script itself needs no Bun API (it runs under node too). */
const BUN = runtimeName() === "bun" ? process.execPath : join(ROOT, "node_modules", ".bin", "bun");

/** Tool names the binary answers to (see scripts/proctor.ts); dist/bin links all of them. */
export const LINKS = ["gh", "gh-shim", "grade", "run-eval", "agent-eval", "eval-steps", "eval-mcp"] as const;
/**
 * Links a release archive carries: every tool but `gh`, which would shadow the real GitHub CLI on a
 * runner's PATH (run-eval stages its own gh inside the sandbox).
 */
export const ARCHIVE_LINKS = LINKS.filter((l) => l !== "gh");
/** Tools built as Node/Deno bundles (dist/js/<tool>.js). */
export const BUNDLES = ARCHIVE_LINKS;

/** Release targets. Windows is left out: the sandbox run-eval needs does not exist there. */
export const TARGETS = ["bun-linux-x64", "bun-linux-arm64", "bun-darwin-x64", "bun-darwin-arm64"] as const;
/** A release target, as `bun build --target` names it. */
export type Target = (typeof TARGETS)[number];

const FLAGS = ["--all", "--archives", "--bundles", "--no-bytecode"];

/** Flags every artifact shares: names kept in stack traces, whitespace and dead code dropped, one version. */
const COMMON = [
  "--minify-syntax",
  "--minify-whitespace",
  `--define=BUILD_VERSION=${JSON.stringify(pkg.version)}`,
];

/** `proctor-linux-x64` for `bun-linux-x64`. */
export function artifactName(target: Target): string {
  return `proctor-${target.replace(/^bun-/, "")}`;
}

function hostTarget(): Target {
  const target = `bun-${process.platform}-${process.arch}`;
  if (!(TARGETS as readonly string[]).includes(target))
    throw new UsageError(`Cannot build for this machine: "${target}" is not one of ${TARGETS.join(", ")}`);
  return target as Target;
}

/**
 * `bun build` arguments that compile `entry` into a standalone binary, as the release is compiled
 * (tests/bench/dist.ts builds its hello-world floor with these).
 */
export function compileArgs(entry: string, target: Target, outfile: string, bytecode: boolean): string[] {
  // Precompiled bytecode cuts the binary's start by about a third (59 -> 41 ms here), and every
  // replayed gh call pays that start; it is reproducible too (same bytes on every build). Splitting
  // turns each lazily imported tool (scripts/proctor.ts) into its own chunk, embedded in the binary
  // like the entry (Bun's docs, "Code splitting" under executables; no file beside the binary), so
  // `gh` and `--version` load their own code and not the whole bundle (tests/bench/dist.ts measures
  // it against a hello world built with these flags). ESM keeps top-level await in the entries.
  // Tools that run inside other people's repositories must not pick up their .env or bunfig.toml.
  return [
    "build",
    entry,
    ...COMMON,
    "--compile",
    "--splitting",
    `--target=${target}`,
    ...(bytecode ? ["--bytecode"] : []),
    "--format=esm",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    `--outfile=${outfile}`,
  ];
}

async function bunBuild(args: string[], what: string): Promise<void> {
  const r = await run([BUN, ...args], { cwd: ROOT });
  if (r.exitCode !== 0) {
    process.stderr.write(r.stderr);
    throw new Error(`Cannot build ${what}: bun build exited ${r.exitCode}`);
  }
}

function compile(target: Target, outfile: string, bytecode: boolean): Promise<void> {
  return bunBuild(compileArgs(join(ROOT, "scripts/proctor.ts"), target, outfile, bytecode), target);
}

/** The generated entry of one tool's bundle: the tool's main, as its link in the binary would run it. */
function bundleEntry(tool: (typeof BUNDLES)[number]): string {
  const file = tool === "gh-shim" ? "gh-shim.ts" : `${tool}.ts`;
  const lines = [
    "// Generated by scripts/build.ts: the entry of one tool's Node/Deno bundle.",
    `import { main } from "../../scripts/${file}";`,
  ];
  if (tool === "run-eval") {
    // run-eval stages the running bundle itself as the sandbox's gh and calls it `<runtime> run-eval.js
    // gh ...` (lib/gh/stage.ts), so this bundle also answers to `gh` as its first word.
    lines.push(
      'import { ghMain } from "../../scripts/gh-shim.ts";',
      "const args = process.argv.slice(2);",
      'process.exitCode = args[0] === "gh" ? await ghMain(args.slice(1)) : await main(args);',
    );
  } else lines.push("process.exitCode = await main(process.argv.slice(2));");
  return `${lines.join("\n")}\n`;
}

async function bundles(dist: string): Promise<void> {
  // The generated entries sit two levels below the root so their imports resolve; their own path
  // never reaches a bundle (comments go with the whitespace).
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  const entries = mkdtempSync(join(ROOT, "dist", ".entries-"));
  const out = join(dist, "js");
  mkdirSync(out, { recursive: true });
  for (const tool of BUNDLES) {
    const entry = join(entries, `${tool}.ts`);
    writeFileSync(entry, bundleEntry(tool));
    const outfile = join(out, `${tool}.js`);
    // Deno runs Node-targeted ESM with node: built-ins as they are.
    const args = ["build", entry, ...COMMON, "--target=node", "--format=esm", `--outfile=${outfile}`];
    await bunBuild(args, `the ${tool} bundle`);
    writeFileSync(outfile, `#!/usr/bin/env node\n${readFileSync(outfile, "utf8").replace(/^#!.*\n/, "")}`);
    chmodSync(outfile, 0o755);
    process.stderr.write(`built ${outfile}\n`);
  }
  rmSync(entries, { recursive: true, force: true });
}

/** Seconds for every archive entry's mtime: SOURCE_DATE_EPOCH (reproducible-builds.org), else 0. */
function sourceDateEpoch(): number {
  const raw = process.env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === "") return 0;
  if (!/^\d+$/.test(raw))
    throw new UsageError(`Cannot read SOURCE_DATE_EPOCH "${raw}": expected whole seconds`);
  return Number(raw);
}

function linkHost(dist: string, host: string): void {
  rmSync(join(dist, "proctor"), { force: true });
  symlinkSync(host, join(dist, "proctor"));
  const bin = join(dist, "bin");
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin);
  for (const link of LINKS) symlinkSync(join("..", host), join(bin, link));
}

/** dist/SHA256SUMS over every release artifact present: binaries, archives, bundles. */
function writeSums(dist: string): number {
  const artifacts = readdirSync(dist)
    .filter((f) => /^proctor-[a-z]+-[a-z0-9]+(\.tar\.gz)?$/.test(f))
    .concat(existsSync(join(dist, "js")) ? readdirSync(join(dist, "js")).map((f) => `js/${f}`) : [])
    .sort();
  const lines = artifacts.map((f) => `${sha256FileSync(join(dist, f))}  ${f}\n`);
  writeFileAtomic(join(dist, "SHA256SUMS"), lines.join(""));
  return artifacts.length;
}

/** Parses the command line: the flags given and the output folder (--outdir=DIR, default dist/). */
function options(argv: string[]): { flags: Set<string>; dist: string } {
  const flags = new Set<string>();
  let dist = join(ROOT, "dist");
  for (const arg of argv) {
    if (arg.startsWith("--outdir=") && arg.length > 9) dist = resolve(arg.slice(9));
    else if (FLAGS.includes(arg)) flags.add(arg);
    else throw new UsageError(`Unknown option "${arg}": expected ${[...FLAGS, "--outdir=DIR"].join(", ")}`);
  }
  return { flags, dist };
}

async function build(argv: string[]): Promise<void> {
  const { flags, dist } = options(argv);
  const mtime = sourceDateEpoch();
  mkdirSync(dist, { recursive: true });
  const host = hostTarget();
  const archives = flags.has("--all") || flags.has("--archives");
  const targets: Target[] = flags.has("--all")
    ? [...TARGETS]
    : flags.has("--bundles") && !archives
      ? []
      : [host];
  for (const target of targets) {
    const name = artifactName(target);
    await compile(target, join(dist, name), !flags.has("--no-bytecode"));
    process.stderr.write(`built ${join(dist, name)}\n`);
    if (!archives) continue;
    const archive = releaseArchive({ dir: name, binary: join(dist, name), links: ARCHIVE_LINKS, mtime });
    writeFileAtomic(join(dist, `${name}.tar.gz`), archive);
    process.stderr.write(`wrote ${join(dist, name)}.tar.gz (${(archive.length / 1e6).toFixed(1)} MB)\n`);
  }
  if (targets.includes(host)) linkHost(dist, artifactName(host));
  if (flags.has("--bundles")) await bundles(dist);
  process.stderr.write(`wrote ${join(dist, "SHA256SUMS")} (${writeSums(dist)} files)\n`);
}

/** Builds what `argv` asks for; returns 0, 2 for a bad command line, 1 when a build fails. */
export async function main(argv: string[]): Promise<number> {
  try {
    await build(argv);
    return 0;
  } catch (error) {
    process.stderr.write(`✗ ${(error as Error).message}\n`);
    return error instanceof ToolError ? error.exitCode : 1;
  }
}

if (isMain(import.meta)) process.exitCode = await main(process.argv.slice(2));
