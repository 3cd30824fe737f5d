// The distribution's bench: how fast the binary starts and how big the release archives are.
//   start: `proctor --version` through the release binary (bytecode), the same build without
//          bytecode (what --bytecode buys), grade's Node and Deno bundles and /bin/true (the floor),
//          interleaved round after round so machine load hits them alike; medians.
//   size:  each archive's download (.tar.gz as shipped, and .tar.xz for comparison) and unpacked
//          size, against the budget: at most 60 MB to download and 150 MB on disk per platform
//          (xz at its default preset -6: -9 takes minutes per archive on a loaded machine).
// Every target is built into a temp folder (BENCH_DIST_TARGETS=host limits it to this machine's).
// Runs alone: `npx bun tests/bench/dist.ts`.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { unpackedBytes } from "../../lib/core/tar.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
// Type-only: erased, so run.ts's own top-level run never starts from here.
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const MB = 1e6;

function build(outdir: string, flags: string[]): void {
  const r = spawnSync(BIN.bun, [join(REPO_ROOT, "scripts/build.ts"), ...flags, `--outdir=${outdir}`], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.status !== 0) throw new Error(`build ${flags.join(" ")} failed: ${r.stderr}`);
}

/** Median wall time in ms of each command, measured in interleaved rounds after 3 warm-up rounds. */
function startTimes(cmds: Record<string, string[]>): Map<string, number> {
  const samples = new Map(Object.keys(cmds).map((k) => [k, [] as number[]]));
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const [name, [file, ...args]] of Object.entries(cmds)) {
      const t0 = performance.now();
      const r = spawnSync(file ?? "", args, {
        stdio: "ignore",
        env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
      });
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
      if (round >= 3) samples.get(name)?.push(performance.now() - t0);
    }
  }
  return new Map(
    [...samples].map(([k, xs]) => {
      const s = xs.sort((a, b) => a - b);
      return [k, s[Math.floor(s.length / 2)] ?? Number.NaN];
    }),
  );
}

function xzBytes(tar: Buffer): number | undefined {
  const r = spawnSync("xz", ["-6", "-T0", "-c"], { input: tar, maxBuffer: 512 * MB });
  return r.status === 0 ? r.stdout.length : undefined;
}

/** The dist bench rows: start times (ratios to `proctor --version` with bytecode) and archive sizes. */
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
  const times = startTimes({
    "/bin/true": ["/bin/true"],
    "proctor --version (bytecode, as released)": [join(release, host), "--version"],
    "proctor --version (no bytecode)": [join(plain, host), "--version"],
    "node dist/js/grade.js --version": [BIN.node, grade, "--version"],
    "deno run dist/js/grade.js --version": [BIN.deno, "run", "-A", "--quiet", grade, "--version"],
  });
  say("start times measured");
  const base = "proctor --version (bytecode, as released)";
  const rows: BenchRow[] = [...times].map(([name, ms]) => ({
    bench: "dist-start",
    name,
    value: ms,
    unit: "ms",
    ratio: ms / (times.get(base) ?? Number.NaN),
    baseline: base,
  }));
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
