import { describe, expect, test } from "bun:test";
import { attrs, CSP, escapeHtml, Html, html, num, page, safeHref } from "../../lib/report/html.ts";
import { ticks } from "../../lib/report/svg.ts";

describe("escaping", () => {
  test.each([
    { name: "plain", input: "abc", expected: "abc" },
    { name: "markup", input: "<script>x</script>", expected: "&lt;script&gt;x&lt;/script&gt;" },
    { name: "quotes", input: `a"b'c`, expected: "a&quot;b&#39;c" },
    { name: "ampersand first", input: "&lt;", expected: "&amp;lt;" },
  ])("$name", ({ input, expected }) => {
    expect(escapeHtml(input)).toBe(expected);
  });

  test("interpolations are escaped once, Html is kept, lists joined, nothing dropped", () => {
    const inner = html`<b>${"<i>"}</b>`;
    const out = html`<p>${"a<b"}${inner}${["x", html`<br>`, 3]}${null}${undefined}${false}</p>`;
    expect(out.value).toBe("<p>a&lt;b<b>&lt;i&gt;</b>x<br>3</p>");
  });

  test("attributes: order kept, values escaped, null/false left out, true bare", () => {
    expect(attrs({ a: 'x"<', b: null, c: false, d: true, e: 2 }).value).toBe(' a="x&quot;&lt;" d e="2"');
  });

  test("a bad attribute name is refused", () => {
    expect(() => attrs({ 'a"onload': "x" })).toThrow('Cannot write attribute "a"onload"');
  });

  test("num carries its source and exact value", () => {
    expect(num({ metric: "pass1", variant: "<v>" }, 0.8125, "81.3%").value).toBe(
      '<span class="num" data-metric="pass1" data-variant="&lt;v&gt;" data-value="0.8125">81.3%</span>',
    );
  });
});

describe("safeHref", () => {
  test.each([
    { input: "trials/a/b.log", expected: "trials/a/b.log" },
    { input: "file:///tmp/x.log", expected: "file:///tmp/x.log" },
    { input: "https://ci.example/run/1", expected: "https://ci.example/run/1" },
    { input: "javascript:alert(1)", expected: undefined },
    { input: "JavaScript:alert(1)", expected: undefined },
    { input: "data:text/html,x", expected: undefined },
    { input: "", expected: undefined },
  ])("$input", ({ input, expected }) => {
    expect(safeHref(input)).toBe(expected);
  });
});

test("page: a self-contained document with a fetch-nothing policy and no script", () => {
  const doc = page({ title: "T <1>", kind: "x", body: new Html("<p>b</p>") });
  expect(doc.startsWith("<!doctype html>")).toBe(true);
  expect(doc).toContain(`content="${escapeHtml(CSP)}"`);
  expect(doc).toContain("<title>T &lt;1&gt;</title>");
  expect(doc).not.toMatch(/<script|<link|@import|url\(/);
});

const TICKS: { min: number; max: number; n: number; expected: number[] }[] = [
  { min: 0, max: 1, n: 4, expected: [0, 0.5, 1] },
  { min: -0.3, max: 0.3, n: 4, expected: [-0.2, 0, 0.2] },
  { min: 0, max: 0, n: 4, expected: [0] },
];
for (const c of TICKS)
  test(`ticks ${c.min}..${c.max}`, () => {
    expect(ticks(c.min, c.max, c.n).map((t) => Math.round(t * 1e9) / 1e9 + 0)).toEqual(c.expected);
  });
