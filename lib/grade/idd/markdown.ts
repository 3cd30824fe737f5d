// The little Markdown the IDD rules read: `## ` sections (exact heading text, first occurrence wins,
// preamble under ""), the first content line, and pipe-table rows. Not a Markdown parser: code
// fences, setext headings and nested lists are plain lines here, exactly as in idd-lint.py.
import { S, splitlines, strip } from "../../compat/py/text.ts";

const SECTION_RE = new RegExp(`^## +(.+?)${S}*$`, "u");

/** Splits a body into {heading: content}; content before the first heading is under "". */
export function splitSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let current = "";
  let buf: string[] = [];
  for (const line of splitlines(text)) {
    const m = SECTION_RE.exec(line);
    if (m) {
      if (!sections.has(current)) sections.set(current, buf.join("\n"));
      current = m[1]!;
      buf = [];
    } else {
      buf.push(line);
    }
  }
  if (!sections.has(current)) sections.set(current, buf.join("\n"));
  return sections;
}

/** The first non-blank line, stripped; "" when there is none. */
export function firstContentLine(text: string): string {
  for (const line of splitlines(text)) {
    const s = strip(line);
    if (s) return s;
  }
  return "";
}

/** Pipe-table rows: lines starting with `|` (after strip) without `---`, cells stripped. */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of splitlines(text)) {
    const s = strip(line);
    if (!s.startsWith("|") || line.includes("---")) continue;
    rows.push(
      s
        .replace(/^\|+|\|+$/g, "")
        .split("|")
        .map(strip),
    );
  }
  return rows;
}

/** Data rows of a table: every row after the header with at least three cells. */
export function dataRows(text: string): string[][] {
  return tableRows(text)
    .slice(1)
    .filter((r) => r.length >= 3);
}
