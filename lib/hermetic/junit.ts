// JUnit XML for CI dashboards: one <testcase> per case; a failed assertion is a <failure>, anything
// else that is not a pass (refused, unusable, isolation, the subject's own code) an <error>; the
// body is the case's whole output, which holds the grade report.
import { shardLabel } from "../core/shard.ts";
import type { CaseRunResult, RunResult } from "./result.ts";

// XML 1.0 allows tab, LF, CR and everything from U+0020 except the surrogates and U+FFFE/U+FFFF.
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text for an XML attribute or element, dropping characters XML cannot carry. */
export function xmlEscape(s: string): string {
  return s
    .replace(INVALID_XML, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

function secs(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function classname(c: CaseRunResult): string {
  const slash = c.name.lastIndexOf("/");
  return slash > 0 ? `run-eval.${c.name.slice(0, slash)}` : "run-eval";
}

function testcase(c: CaseRunResult): string {
  const open = `    <testcase classname="${xmlEscape(classname(c))}" name="${xmlEscape(c.name)}" time="${secs(c.durationMs)}"`;
  if (c.result === "pass") return `${open}/>`;
  const tag = c.result === "fail" ? "failure" : "error";
  const message = c.message ?? `exit ${c.exitCode}`;
  return [
    `${open}>`,
    `      <${tag} message="${xmlEscape(message)}" type="exit ${c.exitCode}">${xmlEscape(c.output)}</${tag}>`,
    "    </testcase>",
  ].join("\n");
}

/** The whole JUnit document. */
export function renderJunit(r: RunResult): string {
  const n = r.cases.length;
  const attrs = `tests="${n}" failures="${r.counts.failed}" errors="${r.counts.errors}" time="${secs(r.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="run-eval" ${attrs}>`,
    `  <testsuite name="run-eval" ${attrs}>`,
    // A shard says which one it is (an extension property; an unsharded run's XML is unchanged).
    ...(r.shard
      ? [
          "    <properties>",
          `      <property name="shard" value="${shardLabel(r.shard)}"/>`,
          "    </properties>",
        ]
      : []),
    ...r.cases.map(testcase),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
