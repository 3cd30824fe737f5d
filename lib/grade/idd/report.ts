// Findings and the report idd-lint prints: the Finding shape shared by every rule module, the
// byte-compatible `render` of idd-lint.py, and the exit code it implies (0 conformant, 1 errors).
// It knows nothing about issues, branches or PRs.

/** IDD Spec version the rules implement. */
export const SPEC_VERSION = "1.1";
/** Where a non-conformant report points the reader. */
export const SPEC_URL = "https://github.com/luongnv89/idd/blob/main/SPEC.md";

export type Severity = "ok" | "error" | "warn" | "info";
export type Level = "L1" | "L2" | "L3";
export const LEVELS = ["L1", "L2", "L3"] as const satisfies readonly Level[];

/** One rule outcome: `code` like "I01", `message` human text ending in its spec section. */
export interface Finding {
  severity: Severity;
  code: string;
  message: string;
}

export const ok = (code: string, message: string): Finding => ({ severity: "ok", code, message });
export const err = (code: string, message: string): Finding => ({ severity: "error", code, message });
export const warn = (code: string, message: string): Finding => ({ severity: "warn", code, message });
export const info = (code: string, message: string): Finding => ({ severity: "info", code, message });

const SYMBOLS = { ok: "✓", error: "✗", warn: "⚠", info: "○" } as const satisfies Record<Severity, string>;
const RULE = "┄".repeat(59);

/** The rendered report (trailing newline included) and its exit code. */
export interface Report {
  text: string;
  exitCode: 0 | 1;
}

/** Renders findings like idd-lint.py's render(); `quiet` hides ok and info lines. */
export function render(findings: readonly Finding[], label: string, level: Level, quiet = false): Report {
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const errors = count("error");
  const lines = [`◆ idd-lint — ${label} (IDD Spec v${SPEC_VERSION}, level ${level})`, RULE];
  for (const f of findings) {
    if (quiet && (f.severity === "ok" || f.severity === "info")) continue;
    lines.push(`  ${SYMBOLS[f.severity]} [${f.code}] ${f.message}`);
  }
  lines.push(RULE, `  Passed: ${count("ok")}   Warnings: ${count("warn")}   Errors: ${errors}`);
  lines.push(
    errors ? `  ✗ not conformant — see ${SPEC_URL}` : `  ✓ conformant at ${level} (spec v${SPEC_VERSION})`,
  );
  return { text: `${lines.join("\n")}\n`, exitCode: errors ? 1 : 0 };
}
