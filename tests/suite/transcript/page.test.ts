// A transcript's page in Chromium: why the trial failed at the top (its error, the failed tool call,
// the check's output, a forged figure), the failed call open and marked, the others folded, what the
// agent wrote shown as text (no markup gets through), nothing fetched, no script; and the transcript
// format's JSON Schema stays generated.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Transcript, transcriptJsonSchema } from "../../../lib/suite/transcript/format.ts";
import { renderTranscriptHtml } from "../../../lib/suite/transcript/page.ts";
import { ARTIFACTS, useReportBrowser } from "../../support/browser.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");

test("schemas/transcript.schema.json is the generated schema", () => {
  const committed = readFileSync(join(REPO, "schemas", "transcript.schema.json"), "utf8");
  expect(committed).toEqual(`${JSON.stringify(transcriptJsonSchema(), null, 2)}\n`);
});

const tokens = { input: 1200, output: 40, cacheRead: 1000, cacheWrite: 0, reasoning: 0 };
const HOSTILE = "<script>alert(1)</script><img src=http://example.invalid/x.png>";

/** A failed trial: a read that worked, a test run that failed, the agent giving up, the check failing. */
const FAILED: Transcript = {
  version: 1,
  task: "fix-add",
  variant: "candidate",
  repeat: 2,
  harness: "claude",
  outcome: { pass: false, failure: 'Bash {"command":"sh test.sh"} failed: Exit code 1' },
  mismatch: [{ metric: "tokens", bridge: 2480, agent: 0 }],
  meter: {
    source: "bridge",
    requests: 2,
    turns: 2,
    failed: 0,
    unread: 0,
    input: 2400,
    output: 80,
    cacheRead: 2000,
    cacheWrite: 0,
    reasoning: 0,
    costUSD: 0.0031,
    prices: "default 2026-11-30",
  },
  exchanges: [
    { seq: 1, method: "HEAD", path: "/", ms: 2, status: 200, sent: [] },
    {
      seq: 2,
      method: "POST",
      path: "/v1/messages?beta=true",
      ms: 800,
      status: 200,
      protocol: "anthropic",
      model: "claude-opus-4-8",
      sent: [
        { role: "system", text: "You are Claude Code." },
        { role: "user", text: "`sh test.sh` fails. Fix add.sh." },
      ],
      reply: {
        text: "Let me look.",
        calls: [
          { id: "t1", name: "Read", args: { file_path: "/work/add.sh" } },
          { id: "t2", name: "Bash", args: { command: "sh test.sh", description: "run the test" } },
        ],
        stop: "tool_use",
      },
      tokens,
      costUSD: 0.0015,
    },
    {
      seq: 3,
      method: "POST",
      path: "/v1/messages?beta=true",
      ms: 700,
      status: 200,
      protocol: "anthropic",
      model: "claude-opus-4-8",
      sent: [
        {
          role: "tool",
          results: [
            { id: "t1", text: `echo $(( $1 - $2 ))\n${HOSTILE}` },
            { id: "t2", text: "Exit code 1\nexpected 5, got -1", isError: true },
          ],
        },
      ],
      reply: { text: "I could not fix it.", calls: [], stop: "end_turn" },
      tokens,
      costUSD: 0.0016,
    },
  ],
  phases: [
    { phase: "agent", exit: 0, timedOut: false, ms: 3000, stdout: "(the CLI's events: see cli)", stderr: "" },
    { phase: "check", exit: 1, timedOut: false, ms: 400, stdout: "", stderr: "expected 5, got -1\n" },
  ],
  diff: {
    files: [
      { path: "add.sh", change: "modified", patch: "--- a/add.sh\n+++ b/add.sh\n@@ -1,1 +1,1 @@\n-a\n+b\n" },
    ],
  },
};

describe("the transcript page", () => {
  const browser = useReportBrowser();

  test("a failed trial: the reason at the top, the failed call open and marked, the rest folded, nothing fetched", async () => {
    const opened = await browser.open(
      renderTranscriptHtml(FAILED, { json: "2.transcript.json", log: "2.log" }),
    );
    const { page } = opened;
    const failed = page.locator('details[data-call="Bash"][data-failed="true"]');
    const seen = {
      verdict: await page.locator("[data-verdict]").getAttribute("data-verdict"),
      failure: await page.locator("[data-failure]").textContent(),
      checkOutput: await page.locator("[data-check-output]").textContent(),
      mismatch: await page.locator('[data-mismatch="tokens"]').textContent(),
      failedOpen: await failed.evaluate((d) => (d as { open: boolean }).open),
      failedVisible: await failed.locator("summary").isVisible(),
      failedSummary: (await failed.locator("summary").textContent())?.trim(),
      failedResult: await failed.locator("[data-result]").textContent(),
      readOpen: await page
        .locator('details[data-call="Read"]')
        .evaluate((d) => (d as { open: boolean }).open),
      hostileShownAsText: (
        await page.locator('details[data-call="Read"] [data-result]').textContent()
      )?.includes(HOSTILE),
      scripts: await page.locator("script").count(),
      images: await page.locator("img").count(),
      links: await page.locator("header a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
      sections: await page
        .locator("[data-section]")
        .evaluateAll((s) => s.map((e) => e.getAttribute("data-section"))),
      // The failure's box sits above the conversation.
      outcomeFirst: await page.evaluate(
        'document.querySelector("[data-section=outcome]").getBoundingClientRect().top < document.querySelector("[data-section=conversation]").getBoundingClientRect().top',
      ),
      foreign: opened.foreign,
      errors: opened.errors,
    };
    expect(seen).toEqual({
      verdict: "fail",
      failure: 'Failed tool call: Bash {"command":"sh test.sh"} failed: Exit code 1',
      checkOutput: "expected 5, got -1",
      mismatch: "The agent reported tokens 0; the bridge counted 2480.",
      failedOpen: true,
      failedVisible: true,
      failedSummary: "✗ Bash sh test.sh (failed)",
      failedResult: "Exit code 1\nexpected 5, got -1",
      readOpen: false,
      hostileShownAsText: true,
      scripts: 0,
      images: 0,
      links: ["2.transcript.json", "2.log"],
      sections: ["outcome", "meter", "conversation", "diff", "phases"],
      outcomeFirst: true,
      foreign: [],
      errors: [],
    });
    await page.screenshot({ path: join(ARTIFACTS, "transcript-unit.png"), fullPage: true });
    await page.close();
  });

  test("a passed trial with no model traffic: it says so, and every section still renders", async () => {
    const passed: Transcript = {
      ...FAILED,
      outcome: { pass: true },
      exchanges: [],
      mismatch: undefined,
      meter: undefined,
      diff: { files: [] },
    };
    delete passed.mismatch;
    delete passed.meter;
    const { page, foreign, errors } = await browser.open(renderTranscriptHtml(passed));
    expect({
      verdict: await page.locator("[data-verdict]").getAttribute("data-verdict"),
      conversation: (await page.locator("[data-section=conversation]").textContent())?.includes(
        "No model exchange.",
      ),
      diff: await page.locator("[data-section=diff] [data-empty]").count(),
      foreign,
      errors,
    }).toEqual({ verdict: "pass", conversation: true, diff: 1, foreign: [], errors: [] });
    await page.close();
  });
});
