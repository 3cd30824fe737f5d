// Every trial has a transcript, end to end (issue 25): `agent-eval suite --report r.html` with the real
// Claude Code CLI in its offline image against the mock model, whose scripted shell call fails (the
// file it reads is not there, after it wrote a draft), after which the agent gives up and the check
// fails. The HTML report links the trial to its transcript's page; opened in Chromium, that page shows why the trial failed
// at the top and the tool call that failed, open, with its command and what came back (screenshot in
// .artifacts/report/transcript-failed.png); the page fetches nothing and the key is in no file written.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { loadTrials } from "../../lib/suite/scorecard/index.ts";
import { loadTranscript } from "../../lib/suite/transcript/format.ts";
import { pinnedVersion } from "../support/agent-clis.ts";
import { ARTIFACTS, launchBrowser, type ReportBrowser } from "../support/browser.ts";
import { type MockModel, startMockModel, text, toolCalls } from "../support/mock-model.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";
import { evalsTree } from "./_support.ts";

setDefaultTimeout(600_000);

const ENTRY = join(REPO_ROOT, "scripts", "agent-eval.ts");
const KEY = `sk-e2e-${crypto.randomUUID()}`;
/** The agent's one shell call: it writes a draft (the diff shows it), then fails reading the notes. */
const READ = "echo draft > draft.txt; cat notes/missing.txt";

let mock: MockModel;
let browser: ReportBrowser;
beforeAll(async () => {
  mock = await startMockModel();
  // Only requests carrying the real key get the script: the bridge put it on.
  mock.scenario(
    KEY,
    (_req, ctx) =>
      ctx.hasToolResult
        ? text("I could not find notes/missing.txt, so I stopped.")
        : toolCalls([{ name: "Bash", args: { command: READ, description: "read the notes" } }]),
    "transcript",
  );
  browser = await launchBrowser();
});
afterAll(async () => {
  await mock?.close();
  await browser?.[Symbol.asyncDispose]();
});

/** Every file under `root`, as text. */
function written(root: string): string {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(root)
    .map((f) => readFileSync(f, "latin1"))
    .join("\n");
}

test("the report links a failing trial to its transcript, whose page shows the tool call that failed", async () => {
  const image = `eval-claude:${pinnedVersion("claude")}`;
  const have = await run(["docker", "image", "inspect", "--format", "{{.Id}}", image]);
  if (have.exitCode !== 0)
    throw new Error(`Missing image ${image}: run \`npx bun evals/images/build.ts --harness all\``);
  using dir = tempDir("transcript-e2e");
  const tree = evalsTree(dir.path);
  tree.task(
    "read-notes",
    "id: read-notes\nrepo: repo\nprompt: Summarise notes/missing.txt into done.txt\ncheck: test -f done.txt\ntimeout: 5m\n",
    {
      "README.md": "a task\n",
    },
  );
  const suite = tree.suite(
    "notes",
    `name: notes\ntasks: [read-notes]\ncontrol: claude\nvariants:\n  - {name: claude, harness: claude, version: "${pinnedVersion("claude")}", model: mock-model}\n`,
  );
  const out = join(dir.path, "out");
  const r = await run(
    [
      process.execPath,
      ENTRY,
      "suite",
      suite,
      "--model-url",
      mock.url,
      "--trials",
      join(out, "trials.jsonl"),
      "--report",
      join(dir.path, "report.html"),
    ],
    { cwd: dir.path, env: { ...(process.env as Record<string, string>), ANTHROPIC_API_KEY: KEY } },
  );
  expect({ exitCode: r.exitCode, stderr: r.stderr.replace(/ \d+(\.\d+)?s\n/, " Ns\n") }).toEqual({
    exitCode: 0,
    stderr: "suite notes 1/1 · read-notes/claude#0 · fail · Ns\n",
  });
  const [trial] = loadTrials(join(out, "trials.jsonl"));
  const transcript = loadTranscript(join(out, trial?.transcript ?? "missing"));

  // The report links the trial to its transcript's page.
  const report = await browser.open(join(dir.path, "report.html"));
  const hrefs = await report.page
    .locator('a[href$=".transcript.html"]')
    .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  await report.page.close();
  expect({ pass: trial?.pass, hrefs: hrefs.length > 0, failure: transcript.outcome.failure }).toEqual({
    pass: false,
    hrefs: true,
    failure: `Bash {"command":"${READ}","description":"read the notes"} failed: Exit code 1`,
  });
  const pageFile = resolve(dirname(join(dir.path, "report.html")), hrefs[0]!);

  const opened = await browser.open(pageFile);
  const { page } = opened;
  const failed = page.locator('details[data-call="Bash"][data-failed="true"]');
  const seen = {
    verdict: await page.locator("[data-verdict]").getAttribute("data-verdict"),
    failure: (await page.locator("[data-failure]").textContent())?.startsWith("Failed tool call: Bash"),
    checkShown: (await page.locator("[data-verdict]").textContent())?.includes("Check: exit 1"),
    failedOpen: await failed.evaluate((d) => (d as { open: boolean }).open),
    failedVisible: await failed.locator("summary").isVisible(),
    failedSummary: (await failed.locator("summary").textContent())?.includes(READ),
    result: (await failed.locator("[data-result]").textContent())?.includes("No such file or directory"),
    turns: await page.locator('[data-section=meter] [data-metric="turns"]').getAttribute("data-value"),
    diff: await page
      .locator("[data-section=diff] [data-file] summary")
      .evaluateAll((fs) => fs.map((f) => f.textContent)),
    scripts: await page.locator("script").count(),
    foreign: opened.foreign,
    errors: opened.errors,
  };
  await page.screenshot({ path: join(ARTIFACTS, "transcript-failed.png"), fullPage: true });
  await page.close();
  expect(seen).toEqual({
    verdict: "fail",
    failure: true,
    checkShown: true,
    failedOpen: true,
    failedVisible: true,
    failedSummary: true,
    result: true,
    turns: "2",
    diff: ["A draft.txt"],
    scripts: 0,
    foreign: [],
    errors: [],
  });
  expect(written(dir.path).includes(KEY)).toBe(false);
});
