// The promotion lane end to end through the real entry (scripts/agent-eval.ts) with the stub agent:
// the original's acceptance tests T1-T12 (reference §7.3, tests/test-eval-promotion-517.sh).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import {
  agentEval,
  BASE_LINE,
  CAND_LINE,
  commitAll,
  gitIn,
  type Invocation,
  type Lane,
  makeLane,
  runArgs,
} from "./_lane.ts";

// Each case starts the real entry (and agents, in a sandbox) several times; on a loaded machine that
// takes minutes, so these get more than the suite's 60 s default.
setDefaultTimeout(300_000);

const CANARY = "CANARY-7f3e9a1c-promotion-demo";
const CRITERION = "The agent opens a pull request that references the new issue.";

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

function runsDir(lane: Lane): string[] {
  const dir = join(lane.store, "runs");
  return existsSync(dir) ? readdirSync(dir) : [];
}

function files(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const child = rel ? `${rel}/${name}` : name;
    if (lstatSync(join(dir, child)).isDirectory()) out.push(child, ...files(dir, child));
    else out.push(child);
  }
  return out;
}

/** Exactly one JSON object on stdout, and never a stack trace on stderr. */
function oneObject(r: Invocation): void {
  expect(r.stdout.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

interface ProvView {
  kind: string;
  clean_tree: boolean;
  arms: Record<"baseline" | "candidate", { ref: string; sha: string; skills_tree: string }>;
  runs: unknown;
  leakcheck: unknown;
  task: { lock_path: string };
  agent: { declared: unknown };
  verdict: unknown;
  written_at: string;
  isolation: { mechanism: string; probe: { ok: boolean } };
  artifacts: { path: string }[];
}

const outer = tempDir("promo-lane");
afterAll(() => outer[Symbol.dispose]());

describe("T1 help", () => {
  test.each([[[]], [["lock"]], [["run"]], [["verdict"]], [["verify"]], [["plan"]]])(
    "agent-eval %p --help exits 0 with usage",
    async (words) => {
      const r = await agentEval([...words, "--help"], outer.path);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("USAGE");
    },
  );
});

describe("T2 refusals (exit 2, no run dir)", () => {
  let lane: Lane;
  beforeAll(() => {
    lane = makeLane(join(outer.path, "t2"));
  });
  test.each([
    ["CI=true", { CI: "true" }, "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)"],
    [
      "GITHUB_ACTIONS=true",
      { GITHUB_ACTIONS: "true" },
      "refused: never run real agents in CI (CI/GITHUB_ACTIONS set)",
    ],
    [
      "no opt-in",
      { IDD_EVAL_AGENT: undefined },
      "refused: the promotion lane is opt-in — set IDD_EVAL_AGENT=1",
    ],
    [
      "EVAL_RECORD=1",
      { EVAL_RECORD: "1" },
      "refused: EVAL_RECORD=1 would record against real GitHub — unset it",
    ],
  ])("%s", async (_name, env, error) => {
    const r = await agentEval(runArgs(lane), lane.repo, env);
    expect({ code: r.code, out: r.out }).toEqual({ code: 2, out: { error, exit: 2 } });
    oneObject(r);
    expect(runsDir(lane)).toEqual([]);
  });
  test("CI=false and CI=0 are not CI", async () => {
    const r = await agentEval(runArgs(lane, "--runs", "0"), lane.repo, { CI: "false" });
    expect(r.out).toEqual({ error: "--runs must be an integer >= 1, got 0", exit: 2 });
  });
  test.each([
    [["--runs", "0"], "--runs must be an integer >= 1, got 0"],
    [["--timeout", "0"], "--timeout must be >= 1, got 0"],
    [["--runs", "two"], '--runs must be an integer, got "two"'],
  ])("bad flag %p is 2", async (flags, error) => {
    const r = await agentEval(runArgs(lane, ...flags), lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({ code: 2, out: { error, exit: 2 } });
  });
  test("a missing flag is 2 with the JSON object", async () => {
    const r = await agentEval(["run", "--task-id", "demo"], lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({ code: 2, out: { error: "missing --baseline", exit: 2 } });
  });
});

describe("T3 agent config refusals (exit 3)", () => {
  let lane: Lane;
  beforeAll(() => {
    lane = makeLane(join(outer.path, "t3"));
  });
  test.each([
    ["pass_env GH_TOKEN", { pass_env: ["GH_TOKEN"] }, "pass_env[0]"],
    ["pass_env TMPDIR", { pass_env: ["TMPDIR"] }, "pass_env[0]"],
    ["missing model", { model: undefined }, "at model"],
    ["empty tools", { tools: [] }, "at tools"],
    ["unknown placeholder", { command: ["x", "{home}"] }, "command[1]"],
  ])("%s", async (_name, change, field) => {
    const config = json(lane.config);
    const path = join(outer.path, `t3-${Object.keys(change)[0]}.json`);
    writeFileSync(path, JSON.stringify({ ...config, ...change }));
    const r = await agentEval(
      ["run", "--task-id", "demo", "--baseline", "main", "--candidate", "feat/x", "--agent-config", path],
      lane.repo,
    );
    expect(r.code).toBe(3);
    expect(r.out.exit).toBe(3);
    expect(String(r.out.error)).toContain(field);
    expect(String(r.out.error)).toContain(path);
    oneObject(r);
  });
  test("a config that is not JSON is one clear line", async () => {
    const path = join(outer.path, "t3-bad.json");
    writeFileSync(path, "{nope");
    const r = await agentEval(
      ["run", "--task-id", "demo", "--baseline", "main", "--candidate", "feat/x", "--agent-config", path],
      lane.repo,
    );
    expect(r.out).toEqual({
      error: `Cannot parse agent config "${path}": Expecting property name enclosed in double quotes at line 1 column 2`,
      exit: 3,
    });
  });
});

describe("T4 lock", () => {
  test("rubric edited after the lock is 3", async () => {
    using dir = tempDir("promo-t4");
    const lane = makeLane(dir.path);
    const rubric = join(lane.store, "rubrics", "demo.json");
    writeFileSync(
      rubric,
      readFileSync(rubric, "utf8").replace('pass_threshold": 1.0', 'pass_threshold": 0.5'),
    );
    const r = await agentEval(runArgs(lane), lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 3,
      out: { error: "rubric changed since it was locked: demo", exit: 3 },
    });
  });
  test("an unlocked task is 3", async () => {
    using dir = tempDir("promo-t4");
    const lane = makeLane(dir.path);
    cpSync(join(lane.store, "tasks", "demo"), join(lane.store, "tasks", "other"), { recursive: true });
    const task = join(lane.store, "tasks", "other", "task.json");
    writeFileSync(task, readFileSync(task, "utf8").replace('"id": "demo"', '"id": "other"'));
    const rubric = join(lane.store, "rubrics", "other.json");
    writeFileSync(
      rubric,
      readFileSync(join(lane.store, "rubrics", "demo.json"), "utf8").replace(
        '"task_id": "demo"',
        '"task_id": "other"',
      ),
    );
    const args = runArgs(lane);
    args[2] = "other";
    const r = await agentEval(args, lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 3,
      out: { error: "task not locked: other — run `lock` and commit the lock", exit: 3 },
    });
  });
  test("lock prints the digests and writes lock.json", async () => {
    using dir = tempDir("promo-t4");
    const lane = makeLane(dir.path);
    const r = await agentEval(["lock", "--task-id", "demo"], lane.repo);
    const lock = json(join(lane.repo, "evals", "promotion", "lock.json")) as {
      tasks: Record<string, unknown>;
    };
    expect(r.code).toBe(0);
    expect(r.out).toEqual({
      locked: true,
      task_id: "demo",
      ...(lock.tasks.demo as object),
      lock: join(lane.repo, "evals", "promotion", "lock.json"),
    });
  });
});

describe("malformed store files are 3 with one line naming file and field", () => {
  test.each([
    [
      "task.json",
      "tasks/demo/task.json",
      (t: string) => t.replace('"min_runs": 2', '"min_runs": 0'),
      "expected >= 1 at min_runs, got 0",
    ],
    [
      "rubric",
      "rubrics/demo.json",
      (t: string) => t.replace("CANARY-7f3e9a1c-promotion-demo", "short"),
      "expected at least 16 characters at canary",
    ],
    ["rubric JSON", "rubrics/demo.json", (t: string) => t.slice(0, 20), "Cannot parse rubric"],
  ])("%s", async (_name, rel, edit, words) => {
    using dir = tempDir("promo-bad");
    const lane = makeLane(dir.path);
    const path = join(lane.store, rel);
    writeFileSync(path, edit(readFileSync(path, "utf8")));
    const r = await agentEval(runArgs(lane), lane.repo);
    expect([r.code, r.out.exit]).toEqual([3, 3]);
    expect(String(r.out.error)).toContain(words);
    expect(String(r.out.error)).toContain(path);
    oneObject(r);
  });
  test("lock.json", async () => {
    using dir = tempDir("promo-bad");
    const lane = makeLane(dir.path);
    const lock = join(lane.repo, "evals", "promotion", "lock.json");
    writeFileSync(lock, '{"tasks": [], "version": 1}\n');
    commitAll(lane.repo, "break the lock");
    const r = await agentEval(runArgs(lane), lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 3,
      out: { error: `Cannot load lock "${lock}": expected an object at tasks, got []`, exit: 3 },
    });
  });
});

describe("T5 clean tree", () => {
  test("an untracked file is 4", async () => {
    using dir = tempDir("promo-t5");
    const lane = makeLane(dir.path);
    writeFileSync(join(lane.repo, "stray.txt"), "x");
    const r = await agentEval(runArgs(lane), lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 4,
      out: {
        error: "dirty tree — commit or stash; provenance never records a dirty source (stray.txt)",
        exit: 4,
      },
    });
  });
  test("not a work tree is 4", async () => {
    using dir = tempDir("promo-t5");
    const r = await agentEval(
      [
        "run",
        "--task-id",
        "demo",
        "--baseline",
        "a",
        "--candidate",
        "b",
        "--agent-config",
        "x.json",
        "--repo",
        dir.path,
      ],
      dir.path,
    );
    expect(r.code).toBe(3); // the missing agent config is seen first, as in the original
    const lane = makeLane(join(dir.path, "l"));
    const s = await agentEval([...runArgs(lane), "--repo", dir.path], dir.path);
    expect({ code: s.code, out: s.out }).toEqual({
      code: 4,
      out: { error: `not a git work tree: ${dir.path}`, exit: 4 },
    });
  });
  test("an unknown ref is 3, a ref without skills/ is 3", async () => {
    using dir = tempDir("promo-t5");
    const lane = makeLane(dir.path);
    const r = await agentEval(
      [
        "run",
        "--task-id",
        "demo",
        "--baseline",
        "nope",
        "--candidate",
        "feat/x",
        "--agent-config",
        lane.config,
      ],
      lane.repo,
    );
    expect(r.out).toEqual({ error: "unknown ref: nope", exit: 3 });
    const first = gitIn(lane.repo, "rev-list", "--max-parents=0", "HEAD");
    rmSync(join(lane.repo, "skills"), { recursive: true });
    commitAll(lane.repo, "drop skills");
    const s = await agentEval(
      ["run", "--task-id", "demo", "--baseline", "main", "--candidate", first, "--agent-config", lane.config],
      lane.repo,
    );
    expect(s.out).toEqual({ error: "ref main has no skills/ tree", exit: 3 });
  });
});

describe("T6 pre-run leak checks (exit 3, no run dir, no temp left)", () => {
  const cases: [string, Parameters<typeof makeLane>[1], Record<string, unknown>][] = [
    [
      "canary in the fixture",
      {
        store: (s) => writeFileSync(join(s, "tasks", "demo", "fixture_repo", "leak.txt"), `see ${CANARY}\n`),
      },
      { held_out: [], staging: [{ path: "fixture_repo/leak.txt", reason: "canary" }] },
    ],
    [
      "the prompt in the candidate's skills",
      {
        candidateExtra: {
          "skills/demo/NOTES.md":
            "File an issue describing the flaky login test and link it from the README.\n",
        },
      },
      {
        held_out: [{ arm: "candidate", path: "skills/demo/NOTES.md", reason: "prompt-shingle" }],
        staging: [],
      },
    ],
    [
      "a criterion quoted in skills",
      { candidateExtra: { "skills/demo/NOTES.md": `${CRITERION}\n` } },
      {
        held_out: [
          {
            arm: "candidate",
            path: "skills/demo/NOTES.md",
            reason: "criteria-shingle",
            criterion: "opens-pr",
          },
        ],
        staging: [],
      },
    ],
    [
      "a byte copy of the rubric in the fixture",
      {
        store: (s) =>
          cpSync(join(s, "rubrics", "demo.json"), join(s, "tasks", "demo", "fixture_repo", "r.json")),
      },
      {
        held_out: [],
        staging: [
          { path: "fixture_repo/r.json", reason: "canary" },
          { path: "fixture_repo/r.json", reason: "criteria-shingle", criterion: "opens-pr" },
          { path: "fixture_repo/r.json", reason: "criteria-shingle", criterion: "reports-behavior" },
          { path: "fixture_repo/r.json", reason: "rubric-copy" },
        ],
      },
    ],
  ];
  test.each(cases)("%s", async (_name, opts, report) => {
    using dir = tempDir("promo-t6");
    using tmp = tempDir("promo-t6-tmp");
    chmodSync(tmp.path, 0o755); // the sandboxed uid must reach its run roots
    const lane = makeLane(dir.path, opts);
    const r = await agentEval(runArgs(lane), lane.repo, { TMPDIR: tmp.path });
    expect(r.code).toBe(3);
    const { error, ...rest } = r.out;
    expect(rest).toEqual({ exit: 3, leak: true, stage: "pre", ...report });
    expect(String(error)).toStartWith("pre-run leak: ");
    expect(runsDir(lane)).toEqual([]);
    expect(readdirSync(tmp.path).filter((n) => n.startsWith("idd-agent-"))).toEqual([]);
    oneObject(r);
  });
  test("stderr names the criterion and the file", async () => {
    using dir = tempDir("promo-t6");
    const lane = makeLane(dir.path, { candidateExtra: { "skills/demo/NOTES.md": `${CRITERION}\n` } });
    const r = await agentEval(runArgs(lane), lane.repo);
    expect(r.stderr).toContain("criteria-shingle opens-pr in skills/demo/NOTES.md");
  });
});

describe("T7-T9 one blinded run of 2+2", () => {
  let lane: Lane;
  let r: Invocation;
  let runDir: string;
  let key: Record<string, { arm: string; exit: unknown; leak: boolean; index: number }>;
  beforeAll(async () => {
    lane = makeLane(join(outer.path, "t7"));
    r = await agentEval(runArgs(lane, "--runs", "2", "--seed", "7"), lane.repo);
    runDir = String(r.out.run_dir);
    key = json(join(runDir, "sealed", "key.json")) as typeof key;
  });

  test("T7 the result object and the sealed key", () => {
    expect(r.code).toBe(0);
    oneObject(r);
    const id = String(r.out.run_id);
    expect(id).toMatch(/^\d{8}T\d{6}Z-demo-[0-9a-f]{6}$/);
    expect(r.out).toEqual({
      run_id: id,
      run_dir: join(lane.store, "runs", id),
      blind_dir: join(lane.store, "runs", id, "blind"),
      scores_template: join(lane.store, "runs", id, "blind", "scores.template.json"),
      runs: 4,
      leaks: 0,
    });
    const arms = Object.values(key).map((k) => `${k.arm}:${k.index}:${k.exit}:${k.leak}`);
    expect(arms.sort()).toEqual([
      "baseline:1:0:false",
      "baseline:2:0:false",
      "candidate:1:0:false",
      "candidate:2:0:false",
    ]);
  });

  test("T7 each run sees only its own arm, its own root, one fixed mtime", () => {
    for (const [bid, rec] of Object.entries(key)) {
      const t = readFileSync(join(runDir, "raw", bid, "transcript.txt"), "utf8");
      const mine = rec.arm === "baseline" ? BASE_LINE : CAND_LINE;
      const other = rec.arm === "baseline" ? CAND_LINE : BASE_LINE;
      expect(t).toContain(`skill: ${mine}`);
      expect(t).not.toContain(other);
      expect(t).toMatch(/^cwd: \/tmp\/idd-agent-[^/]+\/run\/workspace$/m);
      const root = /^cwd: (\/tmp\/idd-agent-[^/]+)\//m.exec(t)?.[1];
      expect(t).toContain(`tmpdir: ${root}/run/tmp\n`);
      expect(t).toContain(`xdg: ${root}/run/home/.cache ${root}/run/home/.config\n`);
      expect(t).toContain("run roots visible: 1\n");
      expect(t).toContain("transcripts visible: 1\n");
      expect(t).toContain("skill files: 1\n");
      expect(t).toContain("mtimes: 315532800 \n");
      expect(t).toContain("fixture commit: 315532800\n");
      expect(existsSync(root!)).toBe(false);
    }
  });

  test("T7 no file is named after an arm", () => {
    expect(files(runDir).filter((f) => /baseline|candidate/i.test(f))).toEqual([]);
  });

  test("T7 provenance", () => {
    const prov = json(join(runDir, "provenance.json")) as unknown as ProvView;
    const order = json(join(runDir, "sealed", "order.json")) as {
      seed: number;
      order: string[];
      nonce: string;
    };
    expect(Object.keys(prov).sort()).toEqual([
      "agent",
      "arms",
      "artifacts",
      "clean_tree",
      "executor",
      "harness",
      "isolation",
      "key_sha256",
      "kind",
      "leakcheck",
      "posture",
      "runs",
      "schema",
      "sha",
      "task",
      "tool",
      "verdict",
      "written_at",
    ]);
    expect(prov.kind).toBe("idd-promotion-provenance");
    expect(prov.clean_tree).toBe(true);
    expect(prov.arms.baseline.ref).toBe("main");
    expect(prov.arms.candidate.ref).toBe("feat/x");
    expect(prov.runs).toEqual({
      per_arm: 2,
      timeout_s: 1800,
      min_runs: 2,
      seed_supplied: true,
      seed_sha256: createHash("sha256").update(`${order.nonce}:7`).digest("hex"),
    });
    expect(order.seed).toBe(7);
    expect(order.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect([...order.order].sort()).toEqual(Object.keys(key).sort());
    expect(prov.leakcheck).toEqual({ pre: { held_out: "pass", staging: "pass" }, post_leaks: 0 });
    expect(prov.task.lock_path).toBe("evals/promotion/lock.json");
    expect(prov.agent.declared).toEqual({
      model: "stub-model",
      cli: "stub-agent",
      cli_version: "1.0.0",
      tools: ["Bash"],
    });
    expect(prov.verdict).toBeNull();
    expect(prov.written_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(prov.isolation.mechanism).toBe("bwrap");
    expect(prov.isolation.probe.ok).toBe(true);
    const paths = prov.artifacts.map((a) => a.path);
    expect(paths).toContain("sealed/key.json");
    expect(paths).toContain("sealed/order.json");
    expect(paths).toContain("blind/scores.template.json");
    expect(paths).toEqual([...paths].sort());
  });

  test("T8 blind packets carry no SHA, path, canary or arm word", () => {
    const prov = json(join(runDir, "provenance.json")) as unknown as ProvView;
    const banned = [
      prov.arms.baseline.sha,
      prov.arms.candidate.sha,
      prov.arms.baseline.sha.slice(0, 7),
      prov.arms.candidate.sha.slice(0, 7),
      prov.arms.baseline.skills_tree.slice(0, 7),
      "idd-agent-",
      runDir,
      lane.store,
      CANARY,
    ];
    const blind = join(runDir, "blind");
    for (const f of files(blind)) {
      if (statSync(join(blind, f)).isDirectory()) continue;
      const text = readFileSync(join(blind, f), "utf8");
      for (const b of banned) expect(text).not.toContain(b);
      expect(text).not.toMatch(/\b(baseline|candidate)\b/i);
    }
    for (const bid of Object.keys(key)) {
      const t = readFileSync(join(blind, bid, "transcript.txt"), "utf8");
      expect(t.split("[redacted]").length - 1).toBeGreaterThanOrEqual(3);
      expect(json(join(blind, bid, "criteria.json"))).toEqual([
        { id: "opens-pr", text: CRITERION },
        { id: "reports-behavior", text: "The issue body reports the observed and the expected behaviour." },
      ] as never);
    }
    expect(json(join(blind, "scores.template.json"))).toEqual(
      Object.fromEntries(
        Object.keys(key)
          .sort()
          .map((b) => [b, { "opens-pr": null, "reports-behavior": null }]),
      ),
    );
  });

  test("T8 one fixed mtime on blind/ and checks/", () => {
    for (const top of ["blind", "checks"]) {
      const all = [top, ...files(join(runDir, top)).map((f) => `${top}/${f}`)];
      expect([...new Set(all.map((f) => lstatSync(join(runDir, f)).mtimeMs / 1000))]).toEqual([315532800]);
    }
  });

  const scoresFor = (pass: (arm: string) => boolean) =>
    Object.fromEntries(
      Object.entries(key).map(([b, k]) => [b, { "opens-pr": pass(k.arm), "reports-behavior": pass(k.arm) }]),
    );

  const verdictOn = async (scores: unknown, copy: string) => {
    const dir = join(outer.path, copy);
    cpSync(runDir, dir, { recursive: true });
    const path = join(outer.path, `${copy}.scores.json`);
    writeFileSync(path, JSON.stringify(scores));
    return { dir, res: await agentEval(["verdict", "--run-dir", dir, "--scores", path], lane.repo) };
  };

  test.each([
    [
      "promote",
      (a: string) => a === "candidate",
      { passed: 0, n: 2, pass_rate: 0 },
      { passed: 2, n: 2, pass_rate: 1 },
    ],
    [
      "reject",
      (a: string) => a === "baseline",
      { passed: 2, n: 2, pass_rate: 1 },
      { passed: 0, n: 2, pass_rate: 0 },
    ],
    ["hold", () => false, { passed: 0, n: 2, pass_rate: 0 }, { passed: 0, n: 2, pass_rate: 0 }],
  ])("T9 %s", async (result, pass, baseline, candidate) => {
    const { dir, res } = await verdictOn(scoresFor(pass), `t9-${result}`);
    expect(res.code).toBe(0);
    oneObject(res);
    // The original's bytes up to our `stats` (the last key): rates and thresholds are floats.
    const rate = (r: typeof baseline) =>
      `{"n": ${r.n}, "pass_rate": ${r.pass_rate}.0, "passed": ${r.passed}}`;
    const head = `{"baseline": ${rate(baseline)}, "candidate": ${rate(candidate)}, "decided_at": "${res.out.decided_at}", "min_pass_rate": 0.5, "pass_threshold": 1.0, "result": "${result}", "scores_sha256": "${res.out.scores_sha256}"`;
    expect(res.stdout.slice(0, res.stdout.indexOf(', "stats": '))).toEqual(head);
    const stored = readFileSync(join(dir, "provenance.json"), "utf8");
    expect(stored.slice(-3)).toEqual("\n}\n"); // _dump's trailing newline
    expect(stored.slice(stored.indexOf('  "verdict": {'), stored.indexOf('    "stats": {'))).toEqual(
      `  "verdict": {\n    "baseline": {\n      "n": ${baseline.n},\n      "pass_rate": ${baseline.pass_rate}.0,\n      "passed": ${baseline.passed}\n    },\n    "candidate": {\n      "n": ${candidate.n},\n      "pass_rate": ${candidate.pass_rate}.0,\n      "passed": ${candidate.passed}\n    },\n    "decided_at": "${res.out.decided_at}",\n    "min_pass_rate": 0.5,\n    "pass_threshold": 1.0,\n    "result": "${result}",\n    "scores_sha256": "${res.out.scores_sha256}",\n`,
    );
    const got: Record<string, unknown> = { ...res.out, decided_at: "", scores_sha256: "", stats: null };
    expect(got).toEqual({
      result,
      baseline,
      candidate,
      pass_threshold: 1,
      min_pass_rate: 0.5,
      decided_at: "",
      scores_sha256: "",
      stats: null,
    });
  });

  test("T9 short scores are 3; a second verdict is 3 and leaves provenance alone; verify", async () => {
    const short = Object.fromEntries(Object.entries(scoresFor(() => true)).slice(1));
    const s = await verdictOn(short, "t9-short");
    expect(s.res.out).toEqual({
      error: "scores must cover exactly every blind id in the sealed key",
      exit: 3,
    });
    const bad = await verdictOn("not an object", "t9-bad-scores");
    expect(bad.res.out).toEqual({
      error: `Cannot load scores "${join(outer.path, "t9-bad-scores.scores.json")}": expected an object at top level, got "not an object"`,
      exit: 3,
    });
    const partial = scoresFor(() => true);
    const first = Object.keys(partial)[0]!;
    partial[first] = { "opens-pr": true } as never;
    const missing = await verdictOn(partial, "t9-partial");
    expect(missing.res.out).toEqual({
      error: `scores for ${first} must cover exactly the criteria opens-pr, reports-behavior`,
      exit: 3,
    });
    const { dir, res } = await verdictOn(
      scoresFor(() => true),
      "t9-twice",
    );
    expect(res.code).toBe(0);
    const before = readFileSync(join(dir, "provenance.json"), "utf8");
    const again = await agentEval(
      ["verdict", "--run-dir", dir, "--scores", join(dir, "scores.json")],
      lane.repo,
    );
    expect({ code: again.code, out: again.out }).toEqual({
      code: 3,
      out: { error: "verdict already recorded for this run — it is final", exit: 3 },
    });
    expect(readFileSync(join(dir, "provenance.json"), "utf8")).toBe(before);
    const v = await agentEval(["verify", "--run-dir", dir], lane.repo);
    // every file the run directory holds is sealed (sealed/manifest.json), provenance.json included
    const n = (json(join(dir, "sealed", "manifest.json")).files as unknown[]).length + 1;
    expect({ code: v.code, out: v.out }).toEqual({
      code: 0,
      out: { verified: true, reason: `${n} artifacts match`, run_dir: dir, sealed: true },
    });
    const bid = Object.keys(key)[0]!;
    writeFileSync(join(dir, "blind", bid, "transcript.txt"), "tampered");
    const w = await agentEval(["verify", "--run-dir", dir], lane.repo);
    expect({ code: w.code, out: w.out }).toEqual({
      code: 0,
      out: {
        verified: false,
        reason: `artifact changed: blind/${bid}/transcript.txt`,
        run_dir: dir,
        sealed: false,
        file: `blind/${bid}/transcript.txt`,
      },
    });
  });

  test("verify: an artifacts entry that is not an object is verified false, exit 0, as the original; verdict 3", async () => {
    const rows: { entry: unknown; reason: string; file?: string }[] = [
      { entry: 42, reason: "unsafe artifact path None" },
      { entry: "blind", reason: "unsafe artifact path None" },
      { entry: { path: "../x", sha256: "", bytes: 0 }, reason: "unsafe artifact path '../x'", file: "../x" },
    ];
    for (const [i, row] of rows.entries()) {
      const dir = join(outer.path, `verify-entry-${i}`);
      cpSync(runDir, dir, { recursive: true });
      rmSync(join(dir, "sealed", "manifest.json")); // as the original wrote it: no manifest
      const p = join(dir, "provenance.json");
      const prov = json(p) as { artifacts: unknown[] };
      writeFileSync(p, JSON.stringify({ ...prov, artifacts: [row.entry, ...prov.artifacts] }));
      const v = await agentEval(["verify", "--run-dir", dir, "--legacy"], lane.repo);
      expect({ code: v.code, out: v.out, lines: v.stdout.split("\n").length }).toEqual({
        code: 0,
        out: {
          verified: false,
          reason: row.reason,
          run_dir: dir,
          sealed: false,
          ...(row.file ? { file: row.file } : {}),
        },
        lines: 2,
      });
    }
    const dir = join(outer.path, "verify-entry-0");
    const scores = join(outer.path, "verify-entry.scores.json");
    writeFileSync(scores, JSON.stringify(scoresFor(() => true)));
    const d = await agentEval(["verdict", "--run-dir", dir, "--scores", scores, "--legacy"], lane.repo);
    expect({ code: d.code, out: d.out }).toEqual({
      code: 3,
      out: {
        error: `Cannot load provenance "${join(dir, "provenance.json")}": expected {path, sha256, bytes} at artifacts[0], got 42`,
        exit: 3,
      },
    });
  });

  test("T9 malformed provenance is 3 for verdict and verify, no traceback", async () => {
    const dir = join(outer.path, "t9-bad");
    cpSync(runDir, dir, { recursive: true });
    const p = join(dir, "provenance.json");
    for (const text of ["{", '{"kind": "other"}', JSON.stringify({ ...json(p), artifacts: "x" })]) {
      writeFileSync(p, text);
      for (const args of [
        ["verify", "--run-dir", dir],
        ["verdict", "--run-dir", dir, "--scores", p],
      ]) {
        const res = await agentEval(args, lane.repo);
        expect(res.code).toBe(3);
        expect(String(res.out.error)).toStartWith(`Cannot `);
        expect(String(res.out.error)).toContain(p);
        oneObject(res);
      }
    }
  });
});

describe("T10 post-run leaks", () => {
  test.each([
    ["leak-transcript", "canary in run/transcript.txt"],
    ["leak-home", "canary in run/home/agent-cache.txt"],
    ["leak-criteria", "rubric criteria text in run/out/summary.md"],
  ])("%s", async (mode, reason) => {
    using dir = tempDir("promo-t10");
    const lane = makeLane(dir.path);
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo, {
      STUB_MODE: mode,
      STUB_CANARY: CANARY,
      STUB_CRITERIA: CRITERION,
    });
    expect(r.code).toBe(0);
    expect(r.out.leaks).toBe(2);
    const runDir = String(r.out.run_dir);
    const key = json(join(runDir, "sealed", "key.json")) as Record<
      string,
      { leak: boolean; leak_reasons: string[] }
    >;
    for (const rec of Object.values(key)) {
      expect(rec.leak).toBe(true);
      expect(rec.leak_reasons).toContain(reason);
    }
    expect((json(join(runDir, "provenance.json")).leakcheck as { post_leaks: number }).post_leaks).toBe(2);
    if (mode !== "leak-transcript") return;
    const scores = join(dir.path, "scores.json");
    writeFileSync(
      scores,
      JSON.stringify(
        Object.fromEntries(Object.keys(key).map((b) => [b, { "opens-pr": true, "reports-behavior": true }])),
      ),
    );
    const v = await agentEval(["verdict", "--run-dir", runDir, "--scores", scores], lane.repo);
    expect(v.out.result).toBe("invalid");
  });
});

describe("T11 the repository", () => {
  test(".gitignore keeps the private store out", () => {
    expect(readFileSync(join(import.meta.dirname, "..", "..", ".gitignore"), "utf8").split("\n")).toContain(
      "evals/promotion/private/",
    );
  });
  test("a fresh lock.json has the committed shape", () => {
    using dir = tempDir("promo-t11");
    const lane = makeLane(dir.path);
    const lock = json(join(lane.repo, "evals", "promotion", "lock.json")) as {
      tasks: Record<string, unknown>;
    };
    expect(Object.keys(lock)).toEqual(["tasks", "version"]);
    expect(Object.keys(lock.tasks)).toEqual(["demo"]);
  });
});

describe("T12 specials, timeout, too few runs", () => {
  test("a FIFO is skipped and recorded; a run past --timeout is 'timeout'; --runs 1 is insufficient", async () => {
    using dir = tempDir("promo-t12");
    const lane = makeLane(dir.path);
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo, { STUB_MODE: "fifo" });
    expect(r.code).toBe(0);
    const runDir = String(r.out.run_dir);
    const key = json(join(runDir, "sealed", "key.json")) as Record<
      string,
      { skipped: string[]; exit: unknown }
    >;
    for (const [bid, rec] of Object.entries(key)) {
      expect(rec.skipped).toEqual(["workspace/agent.fifo"]);
      expect(existsSync(join(runDir, "raw", bid, "workspace", "agent.fifo"))).toBe(false);
    }
    const scores = join(dir.path, "scores.json");
    writeFileSync(
      scores,
      JSON.stringify(
        Object.fromEntries(Object.keys(key).map((b) => [b, { "opens-pr": true, "reports-behavior": true }])),
      ),
    );
    const v = await agentEval(["verdict", "--run-dir", runDir, "--scores", scores], lane.repo);
    expect(v.out.result).toBe("insufficient");

    const t = await agentEval(runArgs(lane, "--runs", "1", "--timeout", "1"), lane.repo, {
      STUB_MODE: "sleep",
    });
    expect(t.code).toBe(0);
    const tkey = json(join(String(t.out.run_dir), "sealed", "key.json")) as Record<
      string,
      { exit: unknown; duration_s: number }
    >;
    for (const rec of Object.values(tkey)) {
      expect(rec.exit).toBe("timeout");
      expect(rec.duration_s).toBeLessThan(10);
    }
    // round(seconds, 3) is a Python float: always written with a point (`1.0`, never `1`)
    const keyText = readFileSync(join(String(t.out.run_dir), "sealed", "key.json"), "utf8");
    expect(
      keyText
        .split("\n")
        .filter((l) => l.includes('"duration_s"') && !/^ {4}"duration_s": \d+\.\d+,$/.test(l)),
    ).toEqual([]);
  });
  test("the agent's own non-zero exit is data (exit 0)", async () => {
    using dir = tempDir("promo-t12");
    const lane = makeLane(dir.path);
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo, { STUB_MODE: "fail" });
    expect(r.code).toBe(0);
    const key = json(join(String(r.out.run_dir), "sealed", "key.json")) as Record<string, { exit: unknown }>;
    expect(Object.values(key).map((k) => k.exit)).toEqual([7, 7]);
  });
  test("an agent that cannot start is 4", async () => {
    using dir = tempDir("promo-t12");
    const lane = makeLane(dir.path, {
      config: { command: [join(dir.path, "missing-cli"), "{prompt_file}"] },
    });
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo);
    expect({ code: r.code, out: r.out }).toEqual({
      code: 4,
      out: {
        error: `agent cannot start: ${JSON.stringify(join(dir.path, "missing-cli"))} is not an executable file`,
        exit: 4,
      },
    });
    expect(runsDir(lane)).toEqual([]);
  });
});
