// The HTML document builder every report uses. Escaping happens once, here: `html` escapes every
// interpolated value unless it is already Html (built by `html` or `svg` itself), so a task name, an
// error message or a log line can never become markup. `page` wraps a body in a self-contained
// document whose Content-Security-Policy forbids every fetch (no scripts, fonts or remote images):
// the report opens offline and cannot phone home even if a value slipped through.
import { REPORT_CSS } from "./_style.ts";

/** Markup that is already safe to place in a document. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A value `html` accepts: text (escaped), numbers, Html (kept), lists of those, and nothing. */
export type Part = string | number | Html | null | undefined | false | readonly Part[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `s` with & < > " ' replaced by entities: safe in text and in quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/** Builds markup from a template: every interpolation is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < parts.length; i++) out += render(parts[i]!) + (strings[i + 1] ?? "");
  return new Html(out);
}

/** Attribute values by name; null/undefined/false leave the attribute out, true writes it bare. */
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** ` name="value"` pairs, escaped, in the given order. */
export function attrs(a: Attrs): Html {
  let out = "";
  for (const [name, value] of Object.entries(a)) {
    if (value === null || value === undefined || value === false) continue;
    if (!/^[a-zA-Z_:][-a-zA-Z0-9_:.]*$/.test(name)) throw new RangeError(`Cannot write attribute "${name}"`);
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`;
  }
  return new Html(out);
}

/** Where a shown number comes from: tests read these attributes and compare them to the input. */
export interface Metric {
  metric: string;
  variant?: string;
  task?: string;
  row?: string;
}

/**
 * A number as shown (`text`) with its exact value and its source in data attributes, e.g.
 * `<span class="num" data-metric="pass1" data-variant="a" data-value="0.8125">81.3%</span>`.
 */
export function num(m: Metric, value: number, text: string, cls = "num"): Html {
  return html`<span${attrs({
    class: cls,
    "data-metric": m.metric,
    "data-variant": m.variant,
    "data-task": m.task,
    "data-row": m.row,
    "data-value": String(value),
  })}>${text}</span>`;
}

/** One section of a report: tests find each by `data-section` and check that it rendered. */
export function section(id: string, title: string, body: Part, note?: Part): Html {
  return html`<section${attrs({ id, "data-section": id })}><h2>${title}</h2>${
    note ? html`<p class="note">${note}</p>` : ""
  }${body}</section>`;
}

/** The policy that makes a report self-contained: nothing may be fetched, inline styles only. */
export const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** A whole self-contained document: title, a header line, and the sections. */
export function page(opts: { title: string; kind: string; subtitle?: Part; body: Part }): string {
  const doc = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="proctor">
<title>${opts.title}</title>
<style>${new Html(REPORT_CSS)}</style></head>
<body data-report="${opts.kind}"><header><h1>${opts.title}</h1>${
    opts.subtitle ? html`<p class="sub">${opts.subtitle}</p>` : ""
  }</header><main>${opts.body}</main></body></html>
`;
  return doc.value;
}

/** `href` when it is a relative path or a file/http(s) URL, else undefined (no javascript: links). */
export function safeHref(href: string | undefined): string | undefined {
  if (href === undefined || href === "") return undefined;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === "file" || scheme === "http" || scheme === "https"
    ? href
    : undefined;
}
