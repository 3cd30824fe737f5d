// The leak scan's bench: MB/s and peak memory of the post-run scan (lib/leak scanRunRoot: the canary
// in every file, the criteria's 8-word shingles in every file here, the worst case) over a seeded,
// generated 500 MB run root of text files (4 KiB to 4 MiB), against reading the same bytes with the
// same chunk size and doing nothing (the floor). Memory: each scan runs in a fresh child process whose
// own peak RSS wait4 reports (tests/bench/_child.ts), once over a 100 MB part of the tree and once over all 500 MB; flat means the
// two peaks are about equal. Targets: >= 200 MB/s, peak RSS at 500 MB within 1.2x of that at 100 MB.
// A second, 100 MB tree of non-ASCII prose, binary and base64 shows the normalising paths (no target).
// Runs alone: `npx bun tests/bench/leak.ts`. The tree is made in a temp dir and removed.
import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { CHUNK_BYTES, scanRunRoot, walkRunRoot } from "../../lib/leak/index.ts";
import { prng } from "../support/cassette-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { runChild as measureChild } from "./_child.ts";

interface BenchRow {
  bench: string;
  name: string;
  value: number;
  unit: string;
  ratio?: number;
  baseline?: string;
  target?: string;
}

const MB = 1024 * 1024;
const PARTS = 5;
const PART_BYTES = 100 * MB;
const CANARY = "CANARY-bench-5d1f0c2a-leak-scan";
const CRITERIA = [
  { id: "opens-pr", text: "The agent opens a pull request that references the new issue." },
  { id: "reports-behavior", text: "The issue body reports the observed and the expected behaviour." },
  { id: "labels", text: "The new issue carries the bug label and names the failing test by its file." },
];
const WORDS =
  "the a agent issue test login flaky readme link pull request branch commit body title label run skill model tool call output file error retry timeout cache token session parser mobile redirect sync review plan".split(
    " ",
  );

/** 16 seeded 1 MiB blocks of word text; files are slices of them, so generation is cheap. */
function blocks(seed: number): Buffer[] {
  const rnd = prng(seed);
  return Array.from({ length: 16 }, () => {
    const parts: string[] = [];
    let size = 0;
    while (size < MB) {
      const line = Array.from({ length: 12 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
      parts.push(line);
      size += line.length + 1;
    }
    return Buffer.from(parts.join("\n")).subarray(0, MB);
  });
}

/** Writes PARTS directories of PART_BYTES each under `root`; the canary sits in the last file. */
function generateTree(root: string, seed = 20261130): number {
  const rnd = prng(seed);
  const pool = blocks(seed);
  let files = 0;
  for (let p = 0; p < PARTS; p++) {
    let left = PART_BYTES;
    for (let i = 0; left > 0; i++) {
      const dir = join(root, `part${p}`, `d${i % 16}`);
      mkdirSync(dir, { recursive: true });
      const size = Math.min(left, Math.floor(4096 + rnd() * 4 * MB));
      const chunks: Buffer[] = [];
      for (let got = 0; got < size; ) {
        const b = pool[Math.floor(rnd() * pool.length)]!;
        const take = Math.min(size - got, b.length);
        chunks.push(b.subarray(0, take));
        got += take;
      }
      writeFileSync(join(dir, `f${i}.txt`), Buffer.concat(chunks));
      left -= size;
      files++;
    }
  }
  writeFileSync(join(root, `part${PARTS - 1}`, "zz-last.txt"), `tail ${CANARY}\n`);
  return files + 1;
}

/**
 * A 100 MB tree of what the ASCII tree leaves out, for the normalising scan's slower paths: prose
 * with dashes, quotes and accents, Cyrillic prose, binary (seeded random bytes) and wrapped base64.
 */
function generateMixed(root: string, seed = 20261201): void {
  const rnd = prng(seed);
  const prose = (words: string[], bytes: number) => {
    const parts: string[] = [];
    let size = 0;
    while (size < bytes) {
      const line = Array.from({ length: 12 }, () => words[Math.floor(rnd() * words.length)]).join(" ");
      parts.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    return Buffer.from(parts.join("\n")).subarray(0, bytes);
  };
  const random = (bytes: number) => {
    const b = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i += 4) b.writeUInt32LE(Math.floor(rnd() * 2 ** 32), i);
    return b;
  };
  const latin = [...WORDS, "—", "agent’s", "café", "naïve", "“done”", "…"];
  const cyrillic = "агент задача тест ветка ошибка повтор сессия модель вызов файл — «готово»".split(" ");
  const kinds: [string, () => Buffer][] = [
    ["prose", () => prose(latin, 4 * MB)],
    ["cyrillic", () => prose(cyrillic, 4 * MB)],
    ["binary", () => random(4 * MB)],
    [
      "base64",
      () =>
        Buffer.from(
          random(3 * MB)
            .toString("base64")
            .replace(/.{76}/g, "$&\n"),
        ),
    ],
  ];
  const plan = [
    "prose",
    "prose",
    "prose",
    "prose",
    "prose",
    "cyrillic",
    "cyrillic",
    "binary",
    "binary",
    "base64",
  ];
  mkdirSync(root, { recursive: true });
  for (let i = 0; i < 25; i++) {
    const kind = plan[i % plan.length]!;
    writeFileSync(join(root, `${kind}-${i}.dat`), kinds.find(([k]) => k === kind)![1]());
  }
}

interface ChildResult {
  bytes: number;
  ms: number;
  /** user + system CPU time of the scan: the machine's load does not inflate it. */
  cpuMs: number;
  maxRssMB: number;
  offenders: number;
}

/** In a child: scan (or just read) `dir`, print what it took. */
async function child(mode: "scan" | "read", dir: string): Promise<void> {
  let bytes = 0;
  const start = performance.now();
  let offenders = 0;
  if (mode === "scan") {
    for (const e of walkRunRoot(dir)) bytes += statSync(e.abs).size;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const report = await scanRunRoot(dir, { canary: CANARY, criteria: CRITERIA }, () => true);
    const cpu = process.cpuUsage(c0);
    offenders = report.offenders.length;
    const ms = performance.now() - t0;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      JSON.stringify({ bytes, ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024, offenders }),
    );
    return;
  }
  const c0 = process.cpuUsage();
  const buf = Buffer.alloc(CHUNK_BYTES);
  for (const e of walkRunRoot(dir)) {
    const fd = openSync(e.abs, "r");
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) bytes += n;
    closeSync(fd);
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(c0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    JSON.stringify({ bytes, ms, cpuMs, maxRssMB: process.resourceUsage().maxRSS / 1024, offenders }),
  );
}

/** The child's own peak memory comes from wait4 (tests/bench/_child.ts), never its own rusage. */
function runChild(mode: "scan" | "read", dir: string): ChildResult {
  const r = measureChild([process.execPath, import.meta.filename, `--${mode}`, dir]);
  if (r.status !== 0) throw new Error(`leak bench child failed: ${r.stderr}`);
  const said = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as ChildResult;
  return { ...said, maxRssMB: r.maxRssMB };
}

const mbps = (r: ChildResult) => r.bytes / MB / (r.ms / 1000);
const cpuMbps = (r: ChildResult) => r.bytes / MB / (r.cpuMs / 1000);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

export async function bench(): Promise<BenchRow[]> {
  using dir = tempDir("leak-bench");
  generateTree(dir.path);
  runChild("read", dir.path); // warm the page cache, so both sides read from memory
  const read = runChild("read", dir.path);
  const full = runChild("scan", dir.path);
  const part = runChild("scan", join(dir.path, "part0"));
  using mixedDir = tempDir("leak-bench-mixed");
  generateMixed(mixedDir.path);
  runChild("read", mixedDir.path);
  const mixed = runChild("scan", mixedDir.path);
  if (full.offenders !== 1)
    throw new Error(`leak bench: expected the one planted canary, got ${full.offenders} offenders`);
  const totalMB = round(full.bytes / MB, 0);
  return [
    {
      bench: "leak",
      name: `scan ${totalMB} MB run root (canary + ${CRITERIA.length} criteria shingles, every file)`,
      value: round(mbps(full)),
      unit: "MB/s",
      ratio: round(mbps(full) / mbps(read), 3),
      baseline: `plain chunked read ${round(mbps(read))} MB/s`,
      target: ">= 200 MB/s",
    },
    {
      bench: "leak",
      name: `scan ${totalMB} MB per CPU second (user + system; load average ${loadavg()[0]!.toFixed(1)})`,
      value: round(cpuMbps(full)),
      unit: "MB/s",
      ratio: round(cpuMbps(full) / cpuMbps(read), 3),
      baseline: `plain chunked read ${round(cpuMbps(read))} MB/s per CPU second`,
      target: ">= 200 MB/s",
    },
    {
      bench: "leak",
      name: `scan ${round(mixed.bytes / MB, 0)} MB mixed (prose with non-ASCII, Cyrillic, binary, base64) per CPU second`,
      value: round(cpuMbps(mixed)),
      unit: "MB/s",
    },
    {
      bench: "leak",
      name: `peak RSS scanning ${round(part.bytes / MB, 0)} MB`,
      value: round(part.maxRssMB),
      unit: "MB",
    },
    {
      bench: "leak",
      name: `peak RSS scanning ${totalMB} MB`,
      value: round(full.maxRssMB),
      unit: "MB",
      ratio: round(full.maxRssMB / part.maxRssMB, 3),
      baseline: `peak RSS at ${round(part.bytes / MB, 0)} MB`,
      target: "<= 1.2x (flat in the size of the tree)",
    },
  ];
}

if (import.meta.main) {
  const mode = process.argv[2];
  if (mode === "--scan" || mode === "--read")
    await child(mode === "--scan" ? "scan" : "read", process.argv[3] ?? ".");
  else console.log(await bench());
}
