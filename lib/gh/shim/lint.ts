// `gh-shim lint`: what in a cassette the replayer would silently skip, refuse or never reach.
// "Can never match" is decided exactly as the dispatcher decides, not by guesswork:
//  * skipped: a calls item that is not an object, or whose argv is not a list (the replayer drops it);
//  * refused first: an exact entry for a data command without --json (the shim exits 2 before any
//    lookup), bare/help/--version argv (answered before any lookup), an argv item with a NUL byte;
//  * shadowed: an exact entry whose normalised argv equals an earlier exact entry's (first wins), and
//    a prefix entry whose normalised argv equals an earlier prefix entry's. No other prefix entry is
//    ever fully shadowed: only a prefix Q of P's own argv tried before P could cover every call P
//    matches, and lookup order (longest first, stable) puts such a Q first only when it equals P.
// Warnings: an unsorted --json list (still matches), non-string argv items (coerced), unknown keys,
// wrong field types. Any finding is exit 1.
import { readFileSync } from "node:fs";
import { pyStr } from "../../compat/py/repr.ts";
import { fileProblem, UsageError } from "../../core/errors.ts";
import { argvKey, hasJsonFlag, isDataCommand, toCall } from "../cassette.ts";
import { CassetteEntry } from "../cassette-schema.ts";

/** One problem, located by JSON path inside the cassette. */
export interface LintFinding {
  severity: "error" | "warning";
  code: string;
  /** Index in `calls`, or null for the file or its root. */
  index: number | null;
  path: string;
  message: string;
}

const kind = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "a list" : `a ${typeof v}`);

/** Lints cassette text; never throws for bad content (that is what findings are for). */
export function lintCassetteText(text: string): LintFinding[] {
  const out: LintFinding[] = [];
  const add = (
    severity: LintFinding["severity"],
    code: string,
    index: number | null,
    path: string,
    message: string,
  ) => out.push({ severity, code, index, path, message });
  if (text.startsWith("\uFEFF")) {
    add(
      "error",
      "encoding",
      null,
      "$",
      "starts with a UTF-8 byte-order mark, which the replayer rejects; save without BOM",
    );
    return out;
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    add(
      "error",
      "invalid-json",
      null,
      "$",
      `not valid JSON (${(error as Error).message}); expected {"version": 1, "calls": [...]}`,
    );
    return out;
  }
  if (root === null || typeof root !== "object" || Array.isArray(root)) {
    add(
      "error",
      "root",
      null,
      "$",
      `root is ${kind(root)}; expected a JSON object {"version": 1, "calls": [...]}`,
    );
    return out;
  }
  const r = root as Record<string, unknown>;
  if (r.version !== undefined && r.version !== null && r.version !== 1) {
    add("error", "version", null, "version", `unsupported version ${JSON.stringify(r.version)}; expected 1`);
  }
  for (const k of Object.keys(r)) {
    if (!["$schema", "version", "calls"].includes(k))
      add("warning", "unknown-key", null, k, `unknown key "${k}"; expected version and calls`);
  }
  if (!("calls" in r)) return out;
  if (!Array.isArray(r.calls)) {
    add("error", "calls", null, "calls", `calls is ${kind(r.calls)}; expected a list of entries`);
    return out;
  }
  const firstExact = new Map<string, number>();
  const firstPrefix = new Map<string, number>();
  r.calls.forEach((entry, i) => {
    const at = `calls[${i}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      add(
        "error",
        "not-object",
        i,
        at,
        `entry is ${kind(entry)}, which the replayer skips; expected an object {"argv": [...], "stdout": ...}`,
      );
      return;
    }
    const e = entry as Record<string, unknown>;
    if (!Array.isArray(e.argv)) {
      add(
        "error",
        "argv",
        i,
        `${at}.argv`,
        `argv is ${e.argv === undefined ? "missing" : kind(e.argv)}, so the replayer skips this entry; expected a list of strings`,
      );
      return;
    }
    e.argv.forEach((a, j) => {
      if (typeof a !== "string")
        add(
          "warning",
          "argv-item",
          i,
          `${at}.argv[${j}]`,
          `${JSON.stringify(a)} is read as ${JSON.stringify(pyStr(a))}; write the string`,
        );
    });
    for (const issue of CassetteEntry.safeParse(entry).error?.issues ?? []) {
      if (issue.path[0] === "argv") continue; // reported above with the replayer's reading
      const where = issue.path.length ? `${at}.${issue.path.join(".")}` : at;
      const keys = issue.code === "unrecognized_keys" ? ` (${issue.keys.join(", ")})` : "";
      add(
        "warning",
        issue.code === "unrecognized_keys" ? "unknown-key" : "type",
        i,
        where,
        `${issue.message}${keys}`,
      );
    }
    const call = toCall(entry, i)!;
    const kindName = call.prefix ? "prefix entry" : "entry";
    const first = call.argv[0];
    if (call.argv.some((a) => a.includes("\u0000"))) {
      add(
        "error",
        "unreachable",
        i,
        `${at}.argv`,
        `argv contains a NUL byte, which no command line can carry; this ${kindName} never matches`,
      );
    } else if (
      !call.prefix &&
      (first === undefined || ["--help", "-h", "help", "--version"].includes(first))
    ) {
      add(
        "error",
        "unreachable",
        i,
        `${at}.argv`,
        `${first === undefined ? "bare gh" : first} is answered before any lookup; this entry never matches`,
      );
    } else if (!call.prefix && isDataCommand(call.argv) && !hasJsonFlag(call.argv)) {
      add(
        "error",
        "needs-json",
        i,
        `${at}.argv`,
        `"${call.argv.slice(0, 2).join(" ")}" without --json is refused (exit 2) before any lookup; this entry never matches: add --json <fields>`,
      );
    }
    const key = argvKey(call.key);
    const seen = call.prefix ? firstPrefix : firstExact;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      add(
        "error",
        "duplicate",
        i,
        `${at}.argv`,
        `same normalised argv as calls[${earlier}] ${key}, which wins; this ${kindName} never matches: remove it or change its argv`,
      );
    } else {
      seen.set(key, i);
      if (key !== argvKey(call.argv)) {
        add(
          "warning",
          "not-normalised",
          i,
          `${at}.argv`,
          `--json fields not normalised: write ${key} (it still matches)`,
        );
      }
    }
  });
  return out;
}

/** One text line per finding: `<file>: <path>: <severity> [<code>] <message>`. */
export function formatFindings(file: string, findings: readonly LintFinding[]): string {
  return findings.map((f) => `${file}: ${f.path}: ${f.severity} [${f.code}] ${f.message}\n`).join("");
}

/** Lints a cassette file: exit 0 clean, 1 findings, 2 unreadable; `output` goes to stdout. */
export function lintCassetteFile(
  file: string,
  opts: { json?: boolean } = {},
): { exitCode: number; output: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`Cannot read cassette "${file}": ${fileProblem(error)}`, { cause: error });
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = ""; // reported as a finding below
  }
  const findings: LintFinding[] =
    text === "" && bytes.length > 0
      ? [
          {
            severity: "error",
            code: "encoding",
            index: null,
            path: "$",
            message: "not valid UTF-8; expected a UTF-8 JSON file",
          },
        ]
      : lintCassetteText(text);
  const output = opts.json
    ? `${JSON.stringify({ file, ok: findings.length === 0, findings })}\n`
    : formatFindings(file, findings);
  return { exitCode: findings.length === 0 ? 0 : 1, output };
}
