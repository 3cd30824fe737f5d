// Times the compiled gh: bare `--version` start against one replayed call on a 10-entry and a
// 10,000-entry cassette (warm index cache). The three commands run interleaved, round after round,
// so machine load hits them alike; prints medians in ms and the ratios to `--version`.
//   bun build --compile scripts/proctor.ts --outfile /tmp/p && ln -sf /tmp/p /tmp/gh
//   bun tests/support/shim-bench.ts /tmp/gh [rounds]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cassetteText, generateCassette } from "./cassette-gen.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const [gh = "/tmp/gh", roundsArg = "40"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const dir = mkdtempSync(join(tmpdir(), "shim-bench-"));
try {
  const cases: { name: string; args: string[]; env: Record<string, string> }[] = [
    { name: "--version", args: ["--version"], env: {} },
  ];
  for (const n of [10, 10_000]) {
    const path = join(dir, `c${n}.json`);
    writeFileSync(path, cassetteText(n));
    cases.push({
      name: `replay ${n}`,
      args: generateCassette(n).calls[Math.floor(n / 2)]!.argv,
      env: { EVAL_CASSETTES: path },
    });
  }
  // The index cache is only written for a cassette that has not changed for 2 s (see replay-cache.ts).
  await new Promise((r) => setTimeout(r, 2100));
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds + 3; round++) {
    for (const c of cases) {
      const t0 = performance.now();
      const r = spawnSync(gh, c.args, {
        env: { ...process.env, ...c.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const dt = performance.now() - t0;
      if (r.status !== 0) throw new Error(`${c.args.join(" ")} exited ${r.status}: ${r.stderr}`);
      if (round >= 3) samples.get(c.name)!.push(dt); // first rounds warm the page and index caches
    }
  }
  const base = median(samples.get("--version")!);
  for (const [name, xs] of samples) {
    console.log(
      `${name.padEnd(14)} median ${median(xs).toFixed(1)} ms  x${(median(xs) / base).toFixed(2)}  (n=${xs.length})`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
