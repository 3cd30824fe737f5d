// lib/core/progress.ts: the live line on a terminal, one line per finished item (or per tenth) in a
// log, nothing when off; the mode from the environment (CI is a log, so it gets the lines).
import { describe, expect, test } from "bun:test";
import { elapsed, Progress, type ProgressMode, progressMode } from "../../lib/core/progress.ts";

function recorder(): { writes: string[]; stream: Pick<NodeJS.WriteStream, "write" | "columns"> } {
  const writes: string[] = [];
  const stream = { columns: 60, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { writes, stream };
}

describe("progressMode", () => {
  const cases: { name: string; env: Record<string, string>; tty: boolean; want: ProgressMode }[] = [
    { name: "a terminal outside CI: live", env: {}, tty: true, want: "live" },
    { name: "a terminal in CI: lines (CI output is a log)", env: { CI: "true" }, tty: true, want: "lines" },
    { name: "a pipe: lines", env: {}, tty: false, want: "lines" },
    { name: "a pipe in CI: lines", env: { CI: "true" }, tty: false, want: "lines" },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect(progressMode(c.env, { isTTY: c.tty })).toEqual(c.want);
    });
});

describe("elapsed", () => {
  test("seconds with two decimals, then one, then minutes", () => {
    expect([870, 9_994, 12_340, 59_900, 125_000].map(elapsed)).toEqual([
      "0.87s",
      "9.99s",
      "12.3s",
      "59.9s",
      "2m05s",
    ]);
  });
});

describe("Progress", () => {
  test("live: one rewritten line, cleared before output and at the end", () => {
    const { writes, stream } = recorder();
    const p = new Progress(2, "live", stream);
    p.start("a");
    p.start("b");
    p.clear();
    p.finish("a", { result: "pass", ms: 10 });
    p.finish("b");
    expect(writes).toEqual([
      "\r\x1b[2Krun-eval 0/2 · running a",
      "\r\x1b[2Krun-eval 0/2 · running a, b",
      "\r\x1b[2K",
      "\r\x1b[2Krun-eval 1/2 · running b",
      "\r\x1b[2K",
    ]);
  });

  test("live: a count alone when nothing is named as running", () => {
    const { writes, stream } = recorder();
    const p = new Progress(3, "live", stream, "eval-steps run");
    p.finish("a");
    p.finish("b");
    p.finish("c");
    expect(writes).toEqual(["\r\x1b[2Keval-steps run 1/3", "\r\x1b[2Keval-steps run 2/3", "\r\x1b[2K"]);
  });

  test("lines: one line per finished item with its name, result and time; nothing redrawn", () => {
    const { writes, stream } = recorder();
    const p = new Progress(3, "lines", stream, "suite s");
    p.start("t/a#0");
    p.start("t/b#0");
    p.finish("t/b#0", { result: "fail", ms: 12_340 });
    p.clear();
    p.render();
    p.finish("t/a#0", { name: "shown-name", result: "pass", ms: 870 });
    p.finish("t/c#0", { result: "infra start", ms: 61_000 });
    expect(writes).toEqual([
      "suite s 1/3 · t/b#0 · fail · 12.3s\n",
      "suite s 2/3 · shown-name · pass · 0.87s\n",
      "suite s 3/3 · t/c#0 · infra start · 1m01s\n",
    ]);
  });

  test("lines: a caller that only counts gets a line per tenth of the total and the last one", () => {
    const { writes, stream } = recorder();
    const p = new Progress(25, "lines", stream, "eval-steps run");
    for (let i = 0; i < 25; i++) p.finish(`s${i}`);
    expect(writes).toEqual([3, 6, 9, 12, 15, 18, 21, 24, 25].map((n) => `eval-steps run ${n}/25\n`));
  });

  test("lines: a resumed run's items count without a line each", () => {
    const { writes, stream } = recorder();
    const p = new Progress(4, "lines", stream, "suite s");
    p.skip(3);
    p.finish("t/d#0", { result: "pass", ms: 1000 });
    expect(writes).toEqual(["suite s 4/4 · t/d#0 · pass · 1.00s\n"]);
  });

  test("a caller's own decision: true is live, false off", () => {
    const { stream } = recorder();
    expect([true, false].map((m) => new Progress(1, m, stream).mode)).toEqual(["live", "off"]);
  });

  test("off (or nothing to count): nothing at all", () => {
    const { writes, stream } = recorder();
    for (const p of [new Progress(2, "off", stream), new Progress(0, "lines", stream)]) {
      p.start("a");
      p.finish("a", { result: "pass", ms: 1 });
      p.render();
      p.clear();
    }
    expect(writes).toEqual([]);
  });
});
