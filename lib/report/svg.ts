// The small chart module: inline SVG built with the same escaping builder as the page. Charts are
// drawn one table row at a time on a shared scale (a forest plot is a column of interval cells over
// one axis), so rows stay aligned with their labels and numbers in the table, and each cell stays
// tiny. Colours come from CSS classes (lib/report/_style.ts), so light, dark and print all work.
import { attrs, type Html, html } from "./html.ts";

/** A linear scale from [min, max] onto [0, width] pixels, clamped to the plot. */
export interface Scale {
  min: number;
  max: number;
  width: number;
}

const PAD = 14;
const H = 18;

function x(s: Scale, v: number): number {
  const t = s.max === s.min ? 0.5 : (v - s.min) / (s.max - s.min);
  return Math.round((PAD + Math.min(1, Math.max(0, t)) * (s.width - 2 * PAD)) * 10) / 10;
}

/** good / bad / neutral colouring of an interval or a verdict. */
export type Tone = "good" | "bad" | "neutral";

/** One forest-plot row: the estimate as a dot, the interval as a line, a dashed reference (e.g. 0). */
export function intervalCell(
  s: Scale,
  v: { estimate: number; lo: number; hi: number; tone?: Tone; ref?: number; label: string },
): Html {
  const tone = v.tone && v.tone !== "neutral" ? ` ${v.tone}` : "";
  const ref =
    v.ref === undefined
      ? ""
      : html`<line class="zero" x1="${x(s, v.ref)}" x2="${x(s, v.ref)}" y1="0" y2="${H}"/>`;
  return html`<svg${attrs({ width: s.width, height: H, viewBox: `0 0 ${s.width} ${H}`, role: "img", "aria-label": v.label })}>${ref}<line class="ci-line${tone}" x1="${x(s, v.lo)}" x2="${x(s, v.hi)}" y1="9" y2="9"/><line class="ci-line${tone}" x1="${x(s, v.lo)}" x2="${x(s, v.lo)}" y1="5" y2="13"/><line class="ci-line${tone}" x1="${x(s, v.hi)}" x2="${x(s, v.hi)}" y1="5" y2="13"/><circle class="est${tone}" cx="${x(s, v.estimate)}" cy="9" r="4"/></svg>`;
}

/** The axis under a column of interval cells: tick marks and labels at `ticks`. */
export function axisCell(s: Scale, ticks: readonly number[], label: (v: number) => string): Html {
  const marks = ticks.map(
    (t) =>
      html`<line class="axis" x1="${x(s, t)}" x2="${x(s, t)}" y1="0" y2="4"/><text x="${x(s, t)}" y="14" text-anchor="middle">${label(t)}</text>`,
  );
  return html`<svg${attrs({ width: s.width, height: 16, viewBox: `0 0 ${s.width} 16`, "aria-hidden": "true" })}><line class="axis" x1="${PAD}" x2="${s.width - PAD}" y1="0" y2="0"/>${marks}</svg>`;
}

/** A horizontal bar for `value` of `max`, with an optional interval whisker. */
export function barCell(s: Scale, v: { value: number; lo?: number; hi?: number; label: string }): Html {
  const w = Math.max(1, x(s, v.value) - PAD);
  const ci =
    v.lo !== undefined && v.hi !== undefined
      ? html`<line class="bar-ci" x1="${x(s, v.lo)}" x2="${x(s, v.hi)}" y1="9" y2="9"/>`
      : "";
  return html`<svg${attrs({ width: s.width, height: H, viewBox: `0 0 ${s.width} ${H}`, role: "img", "aria-label": v.label })}><rect class="bar" x="${PAD}" y="4" width="${w}" height="10" rx="2"/>${ci}</svg>`;
}

/** One trial in a dot matrix cell. */
export interface Dot {
  state: "pass" | "fail" | "infra";
  title: string;
  href?: string;
  attrs?: Record<string, string>;
}

/** A row of dots (one per repeat), each a link to its trial's log when it has one. */
export function dotsCell(dots: readonly Dot[]): Html {
  const step = 14;
  const width = Math.max(step, dots.length * step);
  const items = dots.map((d, i) => {
    const shape =
      d.state === "infra"
        ? html`<rect class="dot infra" x="${i * step + 2}" y="3" width="10" height="10"><title>${d.title}</title></rect>`
        : html`<circle class="dot ${d.state}" cx="${i * step + 7}" cy="8" r="5"><title>${d.title}</title></circle>`;
    const a = attrs({ ...d.attrs, "data-state": d.state });
    return d.href ? html`<a href="${d.href}"${a}>${shape}</a>` : html`<g${a}>${shape}</g>`;
  });
  return html`<svg${attrs({ width, height: 16, viewBox: `0 0 ${width} 16`, role: "img", "aria-label": `${dots.length} trials` })}>${items}</svg>`;
}

/** "nice" tick values covering [min, max]: about `n` of them at 1, 2 or 5 times a power of ten. */
export function ticks(min: number, max: number, n = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step)
    out.push(Math.round(t / step) * step);
  return out;
}
