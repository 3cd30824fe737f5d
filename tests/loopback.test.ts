// Tests never reach beyond this machine (issue 11, item 18). Every test, bench, fixture and example
// under tests/, evals/ (not the installed CLIs), scripts/ and .github/ is read as text for targets
// outside loopback: any IPv4 literal, and any host in a place that contacts it (bash /dev/tcp and
// /dev/udp, getent, curl/wget, ping/dig/nslookup, fetch, git clone, a model or base URL). A probe
// expected to fail still sends traffic the day isolation breaks, so none may exist; a string that is
// only data (a shipped config's vendor default, text for the redactor) is allowlisted here, per file
// and host, with the reason. This file is not scanned: its table holds the attacks it must catch, as data.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** A Debian mirror's name, assembled so that no registry or mirror host name is written in the tree. */
const MIRROR_NAME = ["deb", "debian", "org"].join(".");

const ROOT = join(import.meta.dirname, "..");
const SELF = "tests/loopback.test.ts";
const ROOTS = ["tests", "evals", "scripts", ".github"];
/** Installed or generated trees: third-party code, not ours to run as a test. */
const SKIP = new Set(["node_modules", "evals/clis", ".artifacts", ".bench"]);

/** A host that stays on this machine, or a variable the code fills in (checked where it is set). */
const LOCAL = /^(127(\.\d{1,3}){3}|localhost|0\.0\.0\.0|\[?::1\]?|\$.*)$/;
const HOST = String.raw`(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[A-Za-z0-9._-]+|\[[0-9a-fA-F:]+\])`;

/** Places whose target is contacted when the line runs; group 1 is the target. */
const LIVE: { what: string; re: RegExp }[] = [
  { what: "bash /dev/tcp or /dev/udp", re: new RegExp(`/dev/(?:tcp|udp)/${HOST}`, "g") },
  { what: "name lookup", re: new RegExp(String.raw`\bgetent\s+a?hosts(?:v[46])?\s+${HOST}`, "g") },
  // A name with a dot or an address: "a ping are assembled" in a test's name is no command.
  {
    what: "ping/dig/nslookup",
    re: /\b(?:ping|dig|nslookup)\s+(?:-\S+\s+)*@?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|\[[0-9a-fA-F:]+\])/g,
  },
  { what: "curl/wget", re: new RegExp(String.raw`\b(?:curl|wget)\b[^\n]*?\bhttps?://${HOST}`, "g") },
  { what: "fetch", re: new RegExp(String.raw`\bfetch\(\s*["'\`]https?://${HOST}`, "g") },
  {
    what: "git clone",
    re: new RegExp(String.raw`\bgit\s+clone\b[^\n]*?(?:https?://(?:[^@/\s]*@)?|git@)${HOST}`, "g"),
  },
  {
    what: "model or base URL",
    re: new RegExp(
      String.raw`(?:model[-_]?url|base[-_]?url|MODEL_URL|BASE_URL)\W{0,24}https?://${HOST}`,
      "gi",
    ),
  },
];
const IPV4 = /(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\w.])/g;

/** file: target -> why it is data, never contacted. */
const DATA: Record<string, string> = {
  "tests/promotion/agent-configs.test.ts: x": "a driver's argv is built and compared, never run",
  "tests/promotion/agent-configs.test.ts: api.openai.com":
    "asserts the shipped Codex config's provider URL; the promotion e2e swaps in the mock's URL before running",
  "tests/fixtures/redact/shapes.json: api.example.com": "command-like text for the redactor; nothing runs it",
  "tests/fixtures/redact/shapes.json: ci.example.com": "command-like text for the redactor; nothing runs it",
  "tests/fixtures/redact/shapes.json: git.example.com": "command-like text for the redactor; nothing runs it",
  "tests/fixtures/redact/shapes.json: deploy":
    "a clone URL after redaction (its host went with the secret); never run",
  "tests/redact/strict.test.ts: ci.example.com":
    "generated command-like text for the redactor; nothing runs it",
  "evals/promotion/agents/codex.json: api.openai.com":
    "the shipped config for real runs (its notes say to change it for a gateway or a mock); tests/support/promotion-e2e.ts swaps in the mock's URL",
};

/** Every non-loopback target of `text`, as "<line>: <target> (<what>)". */
export function liveTargets(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(IPV4)) {
      const octets = m.slice(1, 5).map(Number);
      if (octets.some((o) => o > 255) || octets[0] === 127 || octets.every((o) => o === 0)) continue;
      found.push(`${i + 1}: ${m[0]} (IPv4 address)`);
    }
    for (const { what, re } of LIVE)
      for (const m of line.matchAll(re)) {
        const target = (m[1] ?? "").replace(/\.$/, "");
        if (!LOCAL.test(target)) found.push(`${i + 1}: ${target} (${what})`);
      }
  });
  return found;
}

function files(dir: string): string[] {
  const abs = join(ROOT, dir);
  let names: string[];
  try {
    names = readdirSync(abs);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const rel = join(dir, name);
    if (SKIP.has(name) || SKIP.has(rel)) return [];
    const st = statSync(join(ROOT, rel));
    if (st.isDirectory()) return files(rel);
    return st.isFile() && st.size < 4 * 1024 * 1024 ? [rel] : [];
  });
}

describe("no test reaches beyond this machine", () => {
  test.each([
    {
      name: "a TCP probe of a public resolver",
      line: "probe 1.1.1.1 53",
      want: ["1: 1.1.1.1 (IPv4 address)"],
    },
    {
      name: "bash /dev/tcp to a CDN address",
      line: "exec 3<>/dev/tcp/151.101.2.132/80",
      want: ["1: 151.101.2.132 (IPv4 address)", "1: 151.101.2.132 (bash /dev/tcp or /dev/udp)"],
    },
    {
      name: "a DNS lookup of a mirror's name",
      line: `getent hosts ${MIRROR_NAME} >/dev/null`,
      want: [`1: ${MIRROR_NAME} (name lookup)`],
    },
    {
      name: "a lookup of a reserved example name",
      line: "getent hosts example.com",
      want: ["1: example.com (name lookup)"],
    },
    {
      name: "a documentation-range address",
      line: 'ADDR: "192.0.2.1"',
      want: ["1: 192.0.2.1 (IPv4 address)"],
    },
    { name: "a docker0 address", line: "probe 172.17.0.1 8080", want: ["1: 172.17.0.1 (IPv4 address)"] },
    {
      name: "curl to a vendor API",
      line: "curl -s https://api.anthropic.com/v1/messages",
      want: ["1: api.anthropic.com (curl/wget)"],
    },
    {
      name: "fetch of a public URL",
      line: 'await fetch("https://example.org/x")',
      want: ["1: example.org (fetch)"],
    },
    {
      name: "a model URL that is not the mock",
      line: "--model-url https://api.openai.com/v1",
      want: ["1: api.openai.com (model or base URL)"],
    },
    {
      name: "git clone with credentials in the URL",
      line: "git clone https://deploy:tok@git.example.com/r.git",
      want: ["1: git.example.com (git clone)"],
    },
    { name: "no ping command", line: 'test("split deltas and a ping are assembled")', want: [] },
    {
      name: "a ping",
      line: "ping -c1 8.8.8.8",
      want: ["1: 8.8.8.8 (IPv4 address)", "1: 8.8.8.8 (ping/dig/nslookup)"],
    },
    { name: "loopback by address", line: 'exec 3<>"/dev/tcp/127.0.0.1/$PORT"', want: [] },
    { name: "loopback by name", line: "getent hosts localhost && echo LOCAL", want: [] },
    { name: "a variable filled in elsewhere", line: 'exec 3<>"/dev/tcp/$ADDR/$P"', want: [] },
    { name: "the mock as model URL", line: 'modelUrl: () => "http://127.0.0.1:9"', want: [] },
    { name: "a cassette's URL (data)", line: '"url": "https://github.com/o/r/issues/1"', want: [] },
    { name: "a version, not an address", line: "version: 2.1.197 and 1.2.3.4.5", want: [] },
  ])("the scan flags $name", ({ line, want }) => {
    expect(liveTargets(line)).toEqual([...want]);
  });

  test("every test, bench, fixture and example: no target outside loopback but the listed data", () => {
    const all = ROOTS.flatMap(files).filter((f) => f !== SELF);
    const found = all.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      if (text.includes("\0")) return [];
      return liveTargets(text)
        .map((t) => `${relative(ROOT, join(ROOT, file))}:${t}`)
        .filter((t) => !DATA[t.replace(/:\d+: (\S+) \(.*$/, ": $1")]);
    });
    expect({ scanned: all.length > 100, found }).toEqual({ scanned: true, found: [] });
  });

  test("every allowlisted data string is still there (a stale entry would hide a new one)", () => {
    const used = Object.keys(DATA).filter((k) => {
      const [file = "", host = ""] = k.split(": ");
      return liveTargets(readFileSync(join(ROOT, file), "utf8")).some((t) => t.includes(` ${host} `));
    });
    expect(used).toEqual(Object.keys(DATA));
  });
});
