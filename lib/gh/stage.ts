// The `gh` a subject finds first on PATH. It must run inside the sandbox as the subject's user (uid
// 65534 when the runner is root), which can neither read a checkout under /root nor see anything the
// sandbox does not bind, so what gh needs is staged once per machine and version in a cache directory
// readable by all, `<tmpdir>/proctor-gh-<key>/`, bound read-only into every sandbox:
//   compiled binary      a hard link (else a copy) of the binary; bin/gh is a symlink to it, named gh
//   from source on Bun   a copy of bun plus a code-split bundle of scripts/proctor.ts, built once per
//                        source state (~90 ms); bin/gh is `exec bun --no-env-file proctor.js gh "$@"`
//   Node/Deno bundle     a copy of node (deno) plus the bundle it runs; bin/gh execs the pair the same way
// A cache directory we do not own, or that others can write, is never used; one unused for a day is
// pruned. Cost: staging is ~3 ms when cached (a stat walk of lib/ and scripts/ for the key), ~90 ms
// for a rebuilt bundle; a replayed gh call costs ~55 ms through the bundle, ~70 ms through the
// compiled binary, ~90 ms through the .ts sources (which 65534 often cannot read anyway).
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { UpstreamError } from "../core/errors.ts";
import { bundleEntry, fastHash, runtimeName } from "../core/runtime.ts";
import { VERSION } from "../core/version.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** A staged gh: the read-only directory to bind and how bin/gh reaches it. */
export interface GhStage {
  kind: "binary" | "script";
  /** The cache directory; bind it read-only at the same path. */
  dir: string;
  /** binary: the staged executable bin/gh links to. */
  binary?: string;
  /** script: the /bin/sh wrapper written as bin/gh. */
  wrapper?: string;
}

const RUNTIMES = /^(bun|node|deno)(\.exe)?$/;

/** How this process runs: a compiled binary, source files, or a single-file bundle under a runtime. */
export function invocationMode(): "compiled" | "source" | "bundle" {
  if (import.meta.url.endsWith(".ts")) return "source";
  return RUNTIMES.test(basename(process.execPath)) ? "bundle" : "compiled";
}

function sourceKey(dir: string, acc: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) sourceKey(path, acc);
    else acc.push(`${path}:${st.size}:${st.mtimeMs}`);
  }
}

function fileKey(path: string): string {
  const st = statSync(path);
  return `${path}:${st.size}:${st.mtimeMs}`;
}

function safeToUse(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
    return st.isDirectory() && mine && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Hard-links `src` to `dest` when they share a file system, else copies it; mode 0755. */
function placeExecutable(src: string, dest: string): void {
  try {
    linkSync(src, dest);
  } catch {
    copyFileSync(src, dest);
    chmodSync(dest, 0o755);
  }
}

const STALE_MS = 24 * 60 * 60 * 1000;

/** Removes our own cache directories that no run has used for a day (each use touches its directory). */
function pruneStale(keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(tmpdir())) {
    const dir = join(tmpdir(), name);
    if (!name.startsWith("proctor-gh-") || dir === keep || !safeToUse(dir)) continue;
    try {
      if (now - lstatSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run is pruning it too
    }
  }
}

function touch(dir: string): string {
  const now = new Date();
  utimesSync(dir, now, now);
  return dir;
}

/** Returns the cache directory for `key`, filling a fresh one with `fill` when it is missing. */
async function cached(key: string, fill: (dir: string) => Promise<void> | void): Promise<string> {
  const final = join(tmpdir(), `proctor-gh-${key}`);
  pruneStale(final);
  if (safeToUse(final) && existsSync(join(final, ".complete"))) return touch(final);
  const tmp = mkdtempSync(`${final}.tmp-`);
  try {
    await fill(tmp);
    writeFileSync(join(tmp, ".complete"), "");
    chmodSync(tmp, 0o755);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw new UpstreamError(`Cannot stage gh for the sandbox in ${tmp}: ${(error as Error).message}`);
  }
  if (!existsSync(final)) {
    try {
      renameSync(tmp, final);
      return final;
    } catch {
      // another run won the race; use theirs when it is safe
    }
  }
  if (safeToUse(final) && existsSync(join(final, ".complete"))) {
    rmSync(tmp, { recursive: true, force: true });
    return final;
  }
  return tmp; // someone else's directory squats the name: keep our private copy for this run
}

let staged: Promise<GhStage> | undefined;

/** Stages gh once per process (and once per machine and version, through the cache). */
export function stageGh(): Promise<GhStage> {
  staged ??= doStage();
  return staged;
}

async function doStage(): Promise<GhStage> {
  const mode = invocationMode();
  const exe = process.execPath;
  if (mode === "compiled") {
    const dir = await cached(fastHash(`compiled\0${fileKey(exe)}`), (d) =>
      placeExecutable(exe, join(d, "proctor")),
    );
    return { kind: "binary", dir, binary: join(dir, "proctor") };
  }
  if (mode === "bundle") {
    const script = process.argv[1] ?? "";
    const name = basename(script);
    const dir = await cached(fastHash(`bundle\0${fileKey(exe)}\0${fileKey(script)}`), (d) => {
      placeExecutable(exe, join(d, "runtime"));
      copyFileSync(script, join(d, name));
    });
    // Deno runs a script only through its `run` subcommand, with permissions granted up front.
    const deno = runtimeName() === "deno" ? ["run", "-A", "--quiet", "--no-config"] : [];
    return { kind: "script", dir, wrapper: wrapperText(join(dir, "runtime"), [...deno, join(dir, name)]) };
  }
  const parts = [`source\0${VERSION}\0${fileKey(exe)}`];
  sourceKey(join(ROOT, "lib"), parts);
  sourceKey(join(ROOT, "scripts"), parts);
  for (const f of ["package.json", "bun.lock", "package-lock.json"])
    if (existsSync(join(ROOT, f))) parts.push(fileKey(join(ROOT, f)));
  const dir = await cached(fastHash(parts.join("\n")), async (d) => {
    placeExecutable(exe, join(d, "bun"));
    mkdirSync(join(d, "bundle"), { mode: 0o755 });
    if (!(await bundleEntry(join(ROOT, "scripts", "proctor.ts"), join(d, "bundle"))))
      throw new Error("this runtime cannot bundle; run the compiled binary");
    for (const f of readdirSync(join(d, "bundle"))) chmodSync(join(d, "bundle", f), 0o644);
  });
  return {
    kind: "script",
    dir,
    wrapper: wrapperText(join(dir, "bun"), ["--no-env-file", join(dir, "bundle", "proctor.js")]),
  };
}

function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function wrapperText(runtime: string, args: string[]): string {
  return `#!/bin/sh\nexec ${[runtime, ...args].map(shQuote).join(" ")} gh "$@"\n`;
}

/** Writes `<binDir>/gh` for a staged gh: a symlink to the binary, or the wrapper script (0755). */
export function installGh(stage: GhStage, binDir: string): string {
  const gh = join(binDir, "gh");
  if (stage.kind === "binary" && stage.binary) symlinkSync(stage.binary, gh);
  else writeFileSync(gh, stage.wrapper ?? "", { mode: 0o755 });
  return gh;
}
