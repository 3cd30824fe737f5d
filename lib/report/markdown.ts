// The Markdown escaper, as html.ts is the HTML one: every text a report did not write itself (a task
// id, a variant or suite name, an error line, a path an agent changed) goes into GitHub-flavoured
// Markdown through mdCell (a table cell, a list item, a heading's words) or mdCode (a code span), so
// it renders as the very text it is: one line, no heading, emphasis, link, image, HTML, math or
// @mention of its own. Plain names (letters, digits, `-`, `.`, `/`, `@` inside a word) come out
// unchanged, so outputs that copy the original's bytes keep them. It knows no report.

/** What ends a Markdown line, or could pass for a break where the text is shown (C0, C1, U+2028/9). */
const BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/g;
/** Other control characters and bidirectional overrides (text that reads other than it is): shown as U+FFFD. */
const CONTROL =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Characters that start inline markup anywhere in a line: escaped with a backslash. */
const MARKUP = /[\\`*[\]<|~$]/g;
/** `_` opens or closes emphasis unless a letter or digit stands on both sides. */
const UNDERSCORE = /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;
/** An HTML character reference (`&#64;`, `&lt;`): its `&` escaped, so it stays text. */
const ENTITY = /&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)/g;
/** An @mention or team mention (`@user`, `@org/team`): an `@` not inside a word. */
const MENTION = /(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])/g;
/** Where GitHub would start a bare link: a scheme's `://`, or `www.` at a word's start. */
const BARE_LINK = /:\/\/|(?<![A-Za-z0-9])(www)\./gi;
/** Zero width space: it breaks a mention or a bare link without a visible mark. */
const ZWSP = "\u200b";

/** `text` on one line, controls made visible: a line break as `\n`, others as U+FFFD, a tab as a space. */
function oneLine(text: string): string {
  return text.replaceAll("\t", " ").replace(CONTROL, "\ufffd").replace(BREAK, "\\n");
}

/**
 * `text` as Markdown that renders as exactly that text, for a table cell or any run of inline text:
 * one line, `|` escaped (a cell's end), every markup character escaped, mentions and bare links broken.
 * @example mdCell("fix|add\n## done @here") // "fix\\|add\\n## done @\u200bhere"
 */
export function mdCell(text: string): string {
  const escaped = text
    .replace(MARKUP, "\\$&")
    .replace(UNDERSCORE, "\\_")
    .replace(ENTITY, "\\&")
    .replace(MENTION, `@${ZWSP}`)
    .replace(BARE_LINK, (_m, www?: string) => (www === undefined ? `:${ZWSP}//` : `${www}${ZWSP}.`));
  return oneLine(escaped);
}

/**
 * `text` as one inline code span, outside a table (Markdown shows a code span's text verbatim: no
 * markup, link or mention inside it): on one line, fenced by one backtick more than its longest run.
 */
export function mdCode(text: string): string {
  const line = oneLine(text);
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = line.startsWith("`") || line.endsWith("`") || line === "" ? " " : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}
