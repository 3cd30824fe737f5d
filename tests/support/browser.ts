// Headless Chromium from Debian (`/usr/bin/chromium`) driven by playwright-core, with no browser
// download: the one way tests open an HTML report. Every request the page makes is recorded (only
// the report's own file:// URL and data: URLs are allowed), and so is every console error and
// uncaught page error, so a test can assert the page is self-contained and clean. A missing
// Chromium fails with the install command; it never skips.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.PROCTOR_CHROMIUM ?? "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A launched browser with its own profile directory; close it with `await using`. */
export interface ReportBrowser extends AsyncDisposable {
  context: BrowserContext;
  /** Opens `file` in a fresh page and records what it does. */
  open(
    file: string,
    opts?: { colorScheme?: "light" | "dark"; width?: number; media?: "screen" | "print" },
  ): Promise<OpenedReport>;
}

/** A page showing a report, with the requests it made and the errors it logged. */
export interface OpenedReport {
  page: Page;
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Requests other than the report itself and data: URLs. */
  foreign: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Milliseconds from the goto call until the load event, as the test saw it. */
  loadMs: number;
  /** The page's own navigation timing: navigation start to the end of the load event. */
  navMs: number;
}

/** Launches Chromium headless in a temp profile; throws with the install command when it is missing. */
export async function launchBrowser(): Promise<ReportBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\``);
  const profile = mkdtempSync(join(tmpdir(), "proctor-chromium-"));
  // playwright passes --user-data-dir itself for a persistent context: the fresh temp profile.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  return {
    context,
    async open(file, opts = {}) {
      const url = pathToFileURL(file).href;
      const page = await context.newPage();
      await page.setViewportSize({ width: opts.width ?? 1280, height: 900 });
      await page.emulateMedia({ colorScheme: opts.colorScheme ?? "light", media: opts.media ?? "screen" });
      const requests: string[] = [];
      const errors: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      const t0 = performance.now();
      await page.goto(url, { waitUntil: "load" });
      const loadMs = performance.now() - t0;
      const navMs = (await page.evaluate(
        'performance.getEntriesByType("navigation")[0]?.loadEventEnd ?? -1',
      )) as number;
      const foreign = requests.filter((u) => u !== url && !u.startsWith("data:"));
      return { page, requests, foreign, errors, loadMs, navMs };
    },
    async [Symbol.asyncDispose]() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where tests keep screenshots (git-ignored): `.artifacts/report/` at the repository root. */
export const ARTIFACTS = join(import.meta.dirname, "..", "..", ".artifacts", "report");

/** One shown number: its source attributes, exact value and the text a reader sees. */
export interface ShownMetric {
  metric: string;
  variant?: string;
  task?: string;
  row?: string;
  value: number;
  text: string;
}

/** Every element carrying data-value in the page, in document order. */
export async function shownMetrics(page: Page): Promise<ShownMetric[]> {
  return page.$$eval("[data-metric][data-value]", (els) =>
    els.map((el) => {
      const d = (el as unknown as { dataset: Record<string, string | undefined> }).dataset;
      const out: Record<string, unknown> = { metric: d.metric, value: Number(d.value), text: el.textContent };
      if (d.variant !== undefined) out.variant = d.variant;
      if (d.task !== undefined) out.task = d.task;
      if (d.row !== undefined) out.row = d.row;
      return out as unknown as ShownMetric;
    }),
  );
}

/** The id and rendered height of every `data-section` element, in order. */
export async function renderedSections(page: Page): Promise<{ id: string; visible: boolean }[]> {
  return page.$$eval("[data-section]", (els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      const h2 = el.querySelector("h2");
      return {
        id: el.getAttribute("data-section") ?? "",
        visible: r.height > 40 && r.width > 200 && !!h2?.textContent,
      };
    }),
  );
}

/** The computed background colour of the page's body, e.g. "rgb(255, 255, 255)". */
export async function bodyBackground(page: Page): Promise<string> {
  return page.evaluate("getComputedStyle(document.body).backgroundColor") as Promise<string>;
}

/**
 * One browser for a test file: launched before its tests, closed after them. `open(html, name)`
 * writes the document into a temp dir and opens it (the dir goes when the browser closes).
 */
export function useReportBrowser(): {
  open: (document: string, opts?: Parameters<ReportBrowser["open"]>[1]) => Promise<OpenedReport>;
} {
  let browser: ReportBrowser | undefined;
  let dir = "";
  let n = 0;
  beforeAll(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), "proctor-report-"));
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    open(document, opts) {
      if (!browser) throw new Error("useReportBrowser: the browser did not start");
      const file = join(dir, `report-${n++}.html`);
      writeFileSync(file, document);
      return browser.open(file, opts);
    },
  };
}
