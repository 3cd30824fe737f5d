// The distribution's bench: how fast the binary starts and how big the release archives are.
//   start: `proctor --version` and one replayed `gh` call (10,000-entry cassette, index warm in the
//          user's ~/.cache, as a replay outside run-eval finds it) through the release binary
//          (bytecode, --splitting), against the floor: the fastest of four hello worlds compiled with
//          the same flags (scripts/build.ts compileArgs), each printing one line another way
//          (console.log, fs.writeSync, Bun.write, process.stdout.write: the last was the floor until
//          issue 29, and Bun's process.stdout costs ~6 ms CPU on first use), picked by median CPU in
//          this run (target: gh and --version within 1.3x of its CPU). Also: gh with HOME=/tmp (the
//          index in <tmpdir>/proctor-<uid>, vouched for by lstat, so node:fs loads), the same build
//          as one bundle (no --splitting, as before issue 17), without bytecode, grade's Node and
//          Deno bundles and /bin/true. Every binary is built fresh in this run (a binary whose pages
//          were evicted starts slower than a fresh copy of itself). Interleaved round after round (the
//          order rotates) so machine load hits them alike; medians. CPU is the child's own (wait4 via
//          spawnSync's rusage); peak memory is the child's own too, through GNU time
//          (tests/bench/_child.ts), never the parent's peak.
//   size:  each archive's download (.tar.gz as shipped, and .tar.xz for comparison) and unpacked
//          size, against the budget: at most 60 MB to download and 150 MB on disk per platform
//          (xz at its default preset -6: -9 takes minutes per archive on a loaded machine).
// Every target is built into a temp folder (BENCH_DIST_TARGETS=host limits it to this machine's).
// Runs alone: `npx bun tests/bench/dist.ts`.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { unpackedBytes } from "../../lib/core/tar.ts";
import { compileArgs, type Target } from "../../scripts/build.ts";
import { cassetteText, generateCassette } from "../support/cassette-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { runChild } from "./_child.ts";
// Type-only: erased, so run.ts's own top-level run never starts from here.
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = 3;
const MB = 1e6;
const HOST = `bun-${process.platform}-${process.arch}` as Target;

function build(outdir: string, flags: string[]): void {
  const r = spawnSync(BIN.bun, [join(REPO_ROOT, "scripts/build.ts"), ...flags, `--outdir=${outdir}`], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.status !== 0) throw new Error(`build ${flags.join(" ")} failed: ${r.stderr}`);
}

/** Hello worlds that print one line, each another way; the fastest (by CPU) is the start floor. */
const HELLOS = {
  "console.log": 'console.log("hello");\n',
  "fs.writeSync": 'import { writeSync } from "node:fs";\nwriteSync(1, "hello\\n");\n',
  "Bun.write": 'await Bun.write(Bun.stdout, "hello\\n");\n',
  "process.stdout.write": 'process.stdout.write("hello\\n");\n',
};

/** Compiles `entry` into dir/name for this machine with the release's flags (or as one bundle, no splitting). */
function compileHost(dir: string, name: string, entry: string, splitting = true): string {
  const out = join(dir, name);
  const args = compileArgs(entry, HOST, out, true).filter((a) => splitting || a !== "--splitting");
  const r = spawnSync(BIN.bun, args, { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "pipe"] });
  if (r.status !== 0) throw new Error(`compile ${name} failed: ${r.stderr}`);
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

interface Start {
  wallMs: number;
  cpuMs: number;
  maxRssMB: number;
}

/**
 * Medians of each command's wall time, own CPU and own peak memory, in rotating interleaved rounds;
 * `envs` adds variables for some commands.
 */
function startTimes(
  cmds: Record<string, string[]>,
  base: Record<string, string>,
  envs: Record<string, Record<string, string>> = {},
): Map<string, Start> {
  const names = Object.keys(cmds);
  const samples = new Map(
    names.map((k) => [k, { wall: [] as number[], cpu: [] as number[], rss: [] as number[] }]),
  );
  for (let round = 0; round < ROUNDS + WARMUP; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      const [file, ...args] = cmds[name]!;
      const env = { ...base, ...envs[name] };
      const t0 = performance.now();
      const r = Bun.spawnSync([file!, ...args], { stdio: ["ignore", "ignore", "pipe"], env });
      const wall = performance.now() - t0;
      if (r.exitCode !== 0) throw new Error(`${name} exited ${r.exitCode}: ${r.stderr}`);
      // GNU time's CPU is in 10 ms steps, too coarse here; its %M is the child's own peak.
      const mem = runChild([file!, ...args], { env });
      if (mem.status !== 0) throw new Error(`${name} exited ${mem.status} under time: ${mem.stderr}`);
      if (round < WARMUP) continue;
      const s = samples.get(name)!;
      s.wall.push(wall);
      s.cpu.push(Number(r.resourceUsage.cpuTime.total) / 1000);
      s.rss.push(mem.maxRssMB);
    }
  }
  return new Map(
    [...samples].map(([k, s]) => [
      k,
      { wallMs: median(s.wall), cpuMs: median(s.cpu), maxRssMB: median(s.rss) },
    ]),
  );
}

/** The rows of one start measurement: wall, CPU and peak memory, each as a ratio to the floor. */
function startRows(times: Map<string, Start>, floor: string, targeted: Set<string>): BenchRow[] {
  const base = times.get(floor)!;
  const baseline = `fastest hello world: ${floor}`;
  const rows: BenchRow[] = [];
  const figures = [
    ["wall", "wallMs", "ms"],
    ["cpu", "cpuMs", "ms"],
    ["rss", "maxRssMB", "MB"],
  ] as const;
  for (const [what, key, unit] of figures) {
    for (const [name, t] of times) {
      rows.push({
        bench: `dist-${what}`,
        name,
        value: t[key],
        unit,
        ratio: t[key] / base[key],
        baseline,
        ...(targeted.has(name) && what === "cpu" ? { target: "<= 1.3x" } : {}),
      });
    }
  }
  return rows;
}

function xzBytes(tar: Buffer): number | undefined {
  const r = spawnSync("xz", ["-6", "-T0", "-c"], { input: tar, maxBuffer: 512 * MB });
  return r.status === 0 ? r.stdout.length : undefined;
}

/** The dist bench rows: start times (ratios to a hello world built with the same flags) and archive sizes. */
export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("proctor-bench-dist");
  const release = join(dir.path, "release");
  const plain = join(dir.path, "no-bytecode");
  const t0 = performance.now();
  const say = (what: string) =>
    process.stderr.write(`dist bench: ${what} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  build(release, [process.env.BENCH_DIST_TARGETS === "host" ? "--archives" : "--all", "--bundles"]);
  say("release build done");
  build(plain, ["--no-bytecode"]);
  say("no-bytecode build done");
  const host = `proctor-${process.platform}-${process.arch}`;
  const grade = join(release, "js", "grade.js");
  const hellos: Record<string, string[]> = {};
  for (const [how, text] of Object.entries(HELLOS)) {
    const name = `hello-${how.replace(/\W+/g, "-")}`;
    writeFileSync(join(dir.path, `${name}.ts`), text);
    hellos[`hello world (${how}, same flags)`] = [compileHost(dir.path, name, join(dir.path, `${name}.ts`))];
  }
  const bundled = compileHost(dir.path, "one-bundle", join(REPO_ROOT, "scripts/proctor.ts"), false);
  say("floors built");
  // One replayed call on a 10,000-entry cassette, written first so its index settles (see
  // lib/gh/shim/replay-cache.ts) and the warm-up rounds build it.
  const cassette = join(dir.path, "cassette-10000.json");
  writeFileSync(cassette, cassetteText(10_000));
  const call = generateCassette(10_000).calls[5_000]!.argv;
  await new Promise((r) => setTimeout(r, 2100));
  const version = "proctor --version (release: bytecode, splitting)";
  const gh = "gh replay, 10k cassette (release)";
  const ghTmp = "gh replay, 10k cassette (release, HOME=/tmp: index in /tmp via lstat)";
  const times = startTimes(
    {
      ...hellos,
      "/bin/true": ["/bin/true"],
      [version]: [join(release, host), "--version"],
      [gh]: [join(release, host), "gh", ...call],
      [ghTmp]: [join(release, host), "gh", ...call],
      "proctor --version (one bundle, no splitting)": [bundled, "--version"],
      "gh replay, 10k cassette (one bundle, no splitting)": [bundled, "gh", ...call],
      "proctor --version (no bytecode)": [join(plain, host), "--version"],
      "node dist/js/grade.js --version": [BIN.node, grade, "--version"],
      "deno run dist/js/grade.js --version": [BIN.deno, "run", "-A", "--quiet", grade, "--version"],
    },
    { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", EVAL_CASSETTES: cassette },
    { [ghTmp]: { HOME: "/tmp" } },
  );
  say("start times measured");
  const floor = Object.keys(hellos).sort((a, b) => times.get(a)!.cpuMs - times.get(b)!.cpuMs)[0]!;
  const rows = startRows(times, floor, new Set([version, gh]));
  for (const file of readdirSync(release)
    .filter((f) => f.endsWith(".tar.gz"))
    .sort()) {
    const gz = readFileSync(join(release, file));
    const tar = gunzipSync(gz);
    const platform = file.replace(/^proctor-|\.tar\.gz$/g, "");
    const xz = xzBytes(tar);
    rows.push(
      {
        bench: "dist-size",
        name: `${platform} .tar.gz`,
        value: gz.length / MB,
        unit: "MB",
        target: "<= 60 MB",
      },
      ...(xz === undefined
        ? []
        : [
            {
              bench: "dist-size",
              name: `${platform} .tar.xz (not shipped)`,
              value: xz / MB,
              unit: "MB",
              ratio: xz / gz.length,
              baseline: ".tar.gz",
            },
          ]),
      {
        bench: "dist-size",
        name: `${platform} unpacked`,
        value: unpackedBytes(tar) / MB,
        unit: "MB",
        target: "<= 150 MB",
      },
    );
  }
  const bundles = readdirSync(join(release, "js")).map((f) => statSync(join(release, "js", f)).size);
  rows.push({
    bench: "dist-size",
    name: "dist/js bundles, all six",
    value: bundles.reduce((a, b) => a + b, 0) / MB,
    unit: "MB",
  });
  return rows;
}

if (import.meta.main) console.log(await bench());
