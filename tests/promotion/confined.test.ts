// Issue 11, item 1: an agent that leaves a link (or a FIFO) in its run root where the runner reads
// or writes. Each stub mode below attacks the root runner through a host directory holding root-only
// files; the run must be a leak with its reason, the host directory unchanged, and nothing of it
// (and no link or special file at all) in raw/ or blind/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { agentEval, type Lane, makeLane, runArgs } from "./_lane.ts";

// Each case starts the real entry and two sandboxed agents.
setDefaultTimeout(300_000);

const SECRET = "root-only-secret-4d1f9c";

/** Every entry under `dir` (links not followed): path, type and abs (independent of lib/ walkers). */
function walk(dir: string, rel = ""): { path: string; abs: string; type: string }[] {
  const out: { path: string; abs: string; type: string }[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const abs = join(dir, path);
    const st = lstatSync(abs);
    const type = st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "special";
    out.push({ path, abs, type });
    if (type === "dir") out.push(...walk(dir, path));
  }
  return out;
}

/** Every entry under `dir` with its type and, for files, its bytes (a snapshot to compare). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of walk(dir)) out[e.path] = e.type === "file" ? readFileSync(e.abs, "utf8") : `<${e.type}>`;
  return out;
}

const outer = tempDir("promo-confined");
afterAll(() => outer[Symbol.dispose]());

describe("links and FIFOs the agent leaves are leaks; nothing is read or written through them", () => {
  let lane: Lane;
  let host: string;
  let before: Record<string, string>;
  beforeAll(() => {
    lane = makeLane(join(outer.path, "lane"));
    host = join(outer.path, "host");
    mkdirSync(join(host, "out"), { recursive: true });
    writeFileSync(join(host, "secret.txt"), `${SECRET}\n`, { mode: 0o600 });
    writeFileSync(join(host, "out", "notes.md"), `${SECRET} notes\n`, { mode: 0o600 });
    chmodSync(host, 0o700);
    before = snapshot(host);
  });

  test.each([
    ["out-link", "symbolic link at run/out"],
    ["out-file-link", "symbolic link at run/out/secret.txt"],
    ["out-fifo", "special file at run/out/pipe"],
    ["deep-link", "symbolic link at run/out/a/b/c"],
    ["stage-link", "symbolic link at run"],
    ["bad-name", "unreadable run/out/f\uFFFD"], // a name readdir cannot give back is never skipped
  ])("%s", async (mode, reason) => {
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo, {
      STUB_MODE: mode,
      STUB_HOST: host,
      STUB_CANARY: "CANARY-7f3e9a1c-promotion-demo",
    });
    expect({ code: r.code, leaks: r.out.leaks }).toEqual({ code: 0, leaks: 2 });
    const runDir = String(r.out.run_dir);
    const key = JSON.parse(readFileSync(join(runDir, "sealed", "key.json"), "utf8")) as Record<
      string,
      { leak: boolean; leak_reasons: string[] }
    >;
    expect(Object.values(key).map((k) => ({ leak: k.leak, has: k.leak_reasons.includes(reason) }))).toEqual([
      { leak: true, has: true },
      { leak: true, has: true },
    ]);
    expect(snapshot(host)).toEqual(before);
    const kept = [...walk(join(runDir, "raw")), ...walk(join(runDir, "blind"))];
    expect(kept.filter((e) => e.type !== "file" && e.type !== "dir").map((e) => e.path)).toEqual([]);
    expect(kept.filter((e) => e.type === "file" && readFileSync(e.abs, "utf8").includes(SECRET))).toEqual([]);
    expect(readdirSync(join(runDir, "raw")).filter((n) => n.startsWith("."))).toEqual([]);
    expect(lstatSync(host).mode & 0o777).toBe(0o700);
  });
});
