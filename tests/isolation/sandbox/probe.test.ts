// The probe's report format: split at the FIRST end line carrying the nonce (anything the subject
// prints comes after it and is handed back as its own stdout), then read as "key value" lines.
import { describe, expect, test } from "bun:test";
import { parseReport, splitReport } from "../../../lib/isolation/sandbox/_probe.ts";

const END = "proctor-probe-end n1\n";

describe("splitReport", () => {
  const cases: { name: string; stdout: string; want: ReturnType<typeof splitReport> }[] = [
    { name: "empty report", stdout: `${END}out`, want: { complete: true, report: "", rest: "out" } },
    {
      name: "report then subject output",
      stdout: `uid 5\n${END}hello\n`,
      want: { complete: true, report: "uid 5\n", rest: "hello\n" },
    },
    {
      name: "a second end line belongs to the subject",
      stdout: `uid 5\n${END}uid 0\n${END}`,
      want: { complete: true, report: "uid 5\n", rest: `uid 0\n${END}` },
    },
    {
      name: "another nonce is not an end line",
      stdout: "uid 5\nproctor-probe-end n2\n",
      want: { complete: false, report: "", rest: "uid 5\nproctor-probe-end n2\n" },
    },
    { name: "no end line", stdout: "uid 5\n", want: { complete: false, report: "", rest: "uid 5\n" } },
    {
      name: "end text inside a line does not count",
      stdout: `xproctor-probe-end n1\n`,
      want: { complete: false, report: "", rest: "xproctor-probe-end n1\n" },
    },
  ];
  for (const c of cases) test(c.name, () => expect(splitReport(c.stdout, "n1")).toEqual(c.want));
});

test("parseReport reads namespaces, uid, seccomp, limits, interfaces, egress and a refusal", () => {
  const report = [
    "ns user:[11]",
    "ns net:[12]",
    "uid 65534",
    "seccomp 2",
    "nproc 1024",
    "data 1048576",
    "if lo",
    "wrote",
    "egress-begin",
    "bash: connect: Connection refused",
    "bash: line 1: /dev/tcp/127.0.0.1/9: Connection refused",
    "egress-end",
    "refused same net namespace as the runner;",
    "",
  ].join("\n");
  expect(parseReport(report)).toEqual({
    namespaces: { user: "user:[11]", net: "net:[12]" },
    uid: 65534,
    seccomp: 2,
    nproc: "1024",
    data: "1048576",
    interfaces: ["lo"],
    egress: "bash: connect: Connection refused bash: line 1: /dev/tcp/127.0.0.1/9: Connection refused",
    refused: "same net namespace as the runner;",
  });
  expect(parseReport("")).toEqual({
    namespaces: {},
    uid: -1,
    seccomp: -1,
    nproc: "",
    data: "",
    interfaces: [],
    egress: "",
    refused: null,
  });
});
