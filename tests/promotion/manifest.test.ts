// Issue 11, item 2: `verify` authenticates every file of a run directory and its provenance. One real
// run (stub agent, 1+1 runs) is made once; each case works on its own copy: one byte flipped in each
// file, each file removed, files and links added, provenance fields edited. Every case must fail
// with the original's vocabulary and name the file; verdict refuses a run that does not verify.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { walkTree } from "../../lib/leak/walk.ts";
import { MANIFEST } from "../../lib/promotion/manifest.ts";
import { sortedJson } from "../../lib/promotion/records.ts";
import { promotionVerify } from "../../lib/promotion/verdict.ts";
import { tempDir } from "../support/tmp.ts";
import { agentEval, type Lane, makeLane, runArgs } from "./_lane.ts";

setDefaultTimeout(300_000);

const outer = tempDir("promo-manifest");
afterAll(() => outer[Symbol.dispose]());

let lane: Lane;
let runDir: string;
let files: string[];
let copies = 0;

beforeAll(async () => {
  lane = makeLane(join(outer.path, "lane"));
  const r = await agentEval(runArgs(lane, "--runs", "1", "--seed", "3"), lane.repo);
  expect(r.code).toBe(0);
  runDir = String(r.out.run_dir);
  files = [...walkTree(runDir)].filter((e) => e.type === "file").map((e) => e.path);
});

/** A fresh copy of the run directory to tamper with. */
function copy(): string {
  const dir = join(outer.path, `copy-${++copies}`);
  cpSync(runDir, dir, { recursive: true });
  return dir;
}

/** Flips one byte (in provenance, inside written_at so it stays JSON; an empty file gets one). */
function flipped(rel: string, bytes: Buffer): Buffer {
  if (bytes.length === 0) return Buffer.from("x");
  const out = Buffer.from(bytes);
  const at = rel === "provenance.json" ? out.indexOf('"written_at": "') + 16 : out.length >> 1;
  out[at] = (out[at] as number) ^ 0x01;
  return out;
}

/** The expected failure for a tampered `rel`. */
function failure(dir: string, reason: string, file: string) {
  return { verified: false, reason, run_dir: dir, sealed: false, file };
}

describe("a sealed run", () => {
  test("verifies, and covers every file it holds", () => {
    const manifest = JSON.parse(readFileSync(join(runDir, MANIFEST), "utf8")) as {
      files: { path: string }[];
    };
    expect(manifest.files.map((f) => f.path).sort()).toEqual(
      files.filter((f) => f !== MANIFEST && f !== "provenance.json").sort(),
    );
    expect(files.length).toBeGreaterThan(30);
    expect(promotionVerify(runDir)).toEqual({
      verified: true,
      reason: `${files.length - 1} artifacts match`,
      run_dir: runDir,
      sealed: true,
    });
  });

  // One scratch copy, each file tampered with and restored in turn (a copy per file is slow).
  test("one byte flipped in any file fails, naming the file", () => {
    const dir = copy();
    for (const rel of files) {
      const path = join(dir, rel);
      const bytes = readFileSync(path);
      writeFileSync(path, flipped(rel, bytes));
      const got = promotionVerify(dir);
      writeFileSync(path, bytes);
      if (rel === MANIFEST)
        expect([
          got.verified,
          got.file,
          /^sealed manifest (is malformed|does not match its MAC)$/.test(got.reason),
        ]).toEqual([false, MANIFEST, true]);
      else expect({ rel, got }).toEqual({ rel, got: failure(dir, `artifact changed: ${rel}`, rel) });
    }
    expect(promotionVerify(dir).verified).toBe(true);
  });

  test("any file removed fails (provenance: exit 3 as malformed, the manifest: not sealed)", () => {
    const dir = copy();
    const aside = join(outer.path, "removed");
    for (const rel of files) {
      renameSync(join(dir, rel), aside);
      let got: unknown;
      try {
        got = promotionVerify(dir);
      } catch (error) {
        got = (error as Error).message;
      }
      renameSync(aside, join(dir, rel));
      const want =
        rel === "provenance.json"
          ? `Cannot read provenance "${join(dir, rel)}": no such file`
          : failure(
              dir,
              rel === MANIFEST
                ? `not sealed: no ${MANIFEST} (--legacy checks a run written before manifests)`
                : `missing artifact ${rel}`,
              rel,
            );
      expect({ rel, got }).toEqual({ rel, got: want });
    }
    expect(promotionVerify(dir).verified).toBe(true);
  });

  test("agent-eval report's default output beside it is not part of the run (a link there is)", async () => {
    const dir = copy();
    const r = await agentEval(["report", dir], lane.repo);
    expect([r.code, r.out.report]).toEqual([0, join(dir, "report.html")]);
    expect(promotionVerify(dir).verified).toBe(true);
    rmSync(join(dir, "report.html"));
    symlinkSync("/etc/hostname", join(dir, "report.html"));
    expect(promotionVerify(dir)).toEqual(failure(dir, "unexpected link report.html", "report.html"));
  });

  test.each([
    ["a file at the top", "extra.txt", "file"],
    ["a file deep in raw/", "raw/x/out/extra.md", "file"],
    ["a link in blind/", "blind/extra", "link"],
  ])("an added entry fails: %s", (_name, rel, kind) => {
    const dir = copy();
    const bid = files.find((f) => f.startsWith("raw/"))!.split("/")[1]!;
    const path = join(dir, rel.replace("raw/x/", `raw/${bid}/`));
    if (kind === "link") symlinkSync("/etc/hostname", path);
    else writeFileSync(path, "added");
    const shown = rel.replace("raw/x/", `raw/${bid}/`);
    expect(promotionVerify(dir)).toEqual(failure(dir, `unexpected ${kind} ${shown}`, shown));
  });

  test.each([
    ["the declared model", (p: Prov) => ((p.agent.declared as Prov).model = "gpt-other")],
    ["per-arm runs", (p: Prov) => ((p.runs as Prov).per_arm = 5)],
    ["the leak count", (p: Prov) => ((p.leakcheck as Prov).post_leaks = 1)],
    ["an arm's sha", (p: Prov) => ((p.arms.candidate as Prov).sha = "0".repeat(40))],
    ["the artifact list", (p: Prov) => (p.artifacts as unknown[]).pop()],
    ["the key digest", (p: Prov) => (p.key_sha256 = "f".repeat(64))],
  ])("an edited provenance fails: %s", (_name, edit) => {
    const dir = copy();
    const path = join(dir, "provenance.json");
    const prov = JSON.parse(readFileSync(path, "utf8")) as Prov;
    edit(prov);
    writeFileSync(path, sortedJson(prov));
    expect(promotionVerify(dir)).toEqual(
      failure(dir, "artifact changed: provenance.json", "provenance.json"),
    );
  });

  test("verify through the entry: one JSON object, exit 0, the file named", async () => {
    const dir = copy();
    const bid = files.find((f) => f.startsWith("raw/"))!.split("/")[1]!;
    const path = join(dir, "raw", bid, "checks.txt");
    writeFileSync(path, flipped("checks.txt", readFileSync(path)));
    const r = await agentEval(["verify", "--run-dir", dir], lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 0,
      out: failure(dir, `artifact changed: raw/${bid}/checks.txt`, `raw/${bid}/checks.txt`),
    });
  });

  test("verdict refuses a run that does not verify (3), and re-seals the one it decides", async () => {
    const key = JSON.parse(readFileSync(join(runDir, "sealed", "key.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const scores = join(outer.path, "scores.json");
    writeFileSync(
      scores,
      JSON.stringify(
        Object.fromEntries(Object.keys(key).map((b) => [b, { "opens-pr": true, "reports-behavior": true }])),
      ),
    );
    const bad = copy();
    const path = join(bad, "provenance.json");
    const prov = JSON.parse(readFileSync(path, "utf8")) as Prov;
    (prov.runs as Prov).min_runs = 1;
    writeFileSync(path, sortedJson(prov));
    const r = await agentEval(["verdict", "--run-dir", bad, "--scores", scores], lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 3,
      out: { error: "run does not verify: artifact changed: provenance.json", exit: 3 },
    });
    const good = copy();
    const v = await agentEval(["verdict", "--run-dir", good, "--scores", scores], lane.repo);
    expect([v.code, v.out.result]).toEqual([0, "insufficient"]);
    expect(promotionVerify(good)).toEqual({
      verified: true,
      reason: `${files.length} artifacts match`,
      run_dir: good,
      sealed: true,
    });
  });
});

describe("a run written before manifests", () => {
  test("fails verify unless --legacy, which checks what the original checked", async () => {
    const dir = copy();
    rmSync(join(dir, MANIFEST));
    const n = (JSON.parse(readFileSync(join(dir, "provenance.json"), "utf8")) as Prov).artifacts as unknown[];
    const plain = await agentEval(["verify", "--run-dir", dir], lane.repo);
    const legacy = await agentEval(["verify", "--run-dir", dir, "--legacy"], lane.repo);
    expect([plain.code, plain.out, legacy.code, legacy.out]).toEqual([
      0,
      failure(dir, `not sealed: no ${MANIFEST} (--legacy checks a run written before manifests)`, MANIFEST),
      0,
      { verified: true, reason: `${n.length} artifacts match`, run_dir: dir, sealed: false },
    ]);
  });

  test("verdict decides it only with --legacy (3 without), and leaves it unsealed", async () => {
    const dir = copy();
    rmSync(join(dir, MANIFEST));
    const key = JSON.parse(readFileSync(join(dir, "sealed", "key.json"), "utf8")) as Record<string, unknown>;
    const scores = join(outer.path, "legacy-scores.json");
    writeFileSync(
      scores,
      JSON.stringify(
        Object.fromEntries(Object.keys(key).map((b) => [b, { "opens-pr": true, "reports-behavior": false }])),
      ),
    );
    const plain = await agentEval(["verdict", "--run-dir", dir, "--scores", scores], lane.repo);
    const legacy = await agentEval(["verdict", "--run-dir", dir, "--scores", scores, "--legacy"], lane.repo);
    expect([plain.code, plain.out, legacy.code, legacy.out.result]).toEqual([
      3,
      {
        error: `run is not sealed: no ${MANIFEST} — --legacy decides a run written before manifests`,
        exit: 3,
      },
      0,
      "insufficient",
    ]);
    expect([promotionVerify(dir, { legacy: true }).verified, existsSync(join(dir, MANIFEST))]).toEqual([
      true,
      false,
    ]);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: provenance edited as plain JSON
type Prov = Record<string, any>;
