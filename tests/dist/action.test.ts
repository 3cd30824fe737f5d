// The action's install script (.github/action/install.sh) against local release folders, over
// file:// and over a 127.0.0.1 HTTP server: install, checksum refusal, bad input, where it downloads
// from, and the user-namespace switch it flips (or names) for run-eval's sandbox. The archive here is
// a small stand-in built by the real archive writer; tests/dist/release.test.ts installs the real one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import pkg from "../../package.json" with { type: "json" };
import { releaseArchive } from "../../scripts/build/archive.ts";
import { ARCHIVE_LINKS } from "../../scripts/build.ts";
import { HOST_PLATFORM } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const SCRIPT = join(REPO_ROOT, ".github", "action", "install.sh");
const ASSET = `proctor-${HOST_PLATFORM}.tar.gz`;
const dir = tempDir("proctor-action");
const release = join(dir.path, "release");
let server: Server;
let httpBase = "";

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

beforeAll(async () => {
  mkdirSync(join(dir.path, "src"), { recursive: true });
  mkdirSync(release);
  const binary = join(dir.path, "src", "proctor");
  writeFileSync(binary, '#!/bin/sh\n[ "$1" = --version ] && echo 7.7.7\n', { mode: 0o755 });
  const archive = releaseArchive({ dir: `proctor-${HOST_PLATFORM}`, binary, links: ARCHIVE_LINKS, mtime: 0 });
  writeFileSync(join(release, ASSET), archive);
  writeFileSync(
    join(release, "SHA256SUMS"),
    `${"0".repeat(64)}  js/grade.js\n${sha256(archive)}  ${ASSET}\n`,
  );
  server = createServer((req, res) => {
    try {
      res.end(readFileSync(join(release, (req.url ?? "/").slice(1))));
    } catch {
      res.statusCode = 404;
      res.end("not found");
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  httpBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  dir[Symbol.dispose]();
});

/** Writes executable stand-ins (uname, curl, sysctl, sudo, id) into a fresh folder for PATH. */
function fakes(scripts: Record<string, string>): string {
  const bin = join(dir.path, `fakes-${Math.random().toString(36).slice(2)}`);
  mkdirSync(bin);
  for (const [name, body] of Object.entries(scripts))
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return bin;
}

let runs = 0;
/** Runs install.sh with a clean environment plus `env`; returns what it did and what it wrote. */
async function install(env: Record<string, string>, fakeBin?: string) {
  const n = ++runs;
  const knob = join(dir.path, `knob-${n}`);
  writeFileSync(knob, env.KNOB ?? "0\n");
  const base = {
    PATH: `${fakeBin ? `${fakeBin}:` : ""}/usr/local/bin:/usr/bin:/bin`,
    HOME: dir.path,
    PROCTOR_INSTALL_DIR: join(dir.path, `installed-${n}`),
    PROCTOR_USERNS_KNOB: knob,
    GITHUB_PATH: join(dir.path, `path-${n}`),
    GITHUB_OUTPUT: join(dir.path, `output-${n}`),
  };
  const { KNOB: _, ...rest } = env;
  const r = await run(["bash", SCRIPT], { env: { ...base, ...rest } });
  const read = (p: string) => {
    try {
      return readFileSync(p, "utf8");
    } catch {
      return null;
    }
  };
  return {
    exitCode: r.exitCode,
    stderr: r.stderr,
    githubPath: read(base.GITHUB_PATH),
    githubOutput: read(base.GITHUB_OUTPUT),
    installDir: base.PROCTOR_INSTALL_DIR,
  };
}

function installed(path: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(path)
      .sort()
      .map((f) => [f, f === "proctor" ? "file" : readlinkSync(join(path, f))]),
  );
}

const LAYOUT = Object.fromEntries([...ARCHIVE_LINKS.map((l) => [l, "proctor"]), ["proctor", "file"]]);

describe("install.sh", () => {
  for (const via of ["file", "http"] as const) {
    test(`installs from a local release over ${via}, onto PATH, with outputs`, async () => {
      const r = await install({
        PROCTOR_DOWNLOAD_BASE: via === "file" ? `file://${release}` : `${httpBase}/`,
      });
      expect({ ...r, layout: installed(r.installDir) }).toEqual({
        exitCode: 0,
        stderr: `proctor 7.7.7 (${HOST_PLATFORM}) installed in ${r.installDir}\n`,
        githubPath: `${r.installDir}\n`,
        githubOutput: `bin-dir=${r.installDir}\nversion=7.7.7\n`,
        installDir: r.installDir,
        layout: LAYOUT,
      });
    });
  }

  const refusals = [
    {
      name: "an archive whose checksum does not match",
      sums: `${"a".repeat(64)}  ${ASSET}\n`,
      exitCode: 1,
      stderr: (got: string) =>
        `::error title=proctor::Cannot verify ${ASSET}: sha256 is ${got}, SHA256SUMS says ${"a".repeat(64)}\n`,
    },
    {
      name: "SHA256SUMS without a line for the archive",
      sums: `${"a".repeat(64)}  proctor-plan9-x64.tar.gz\n`,
      exitCode: 1,
      stderr: () =>
        `::error title=proctor::Cannot verify ${ASSET}: SHA256SUMS of v${pkg.version} has no line for it\n`,
    },
  ];
  for (const c of refusals) {
    test(`refuses ${c.name}`, async () => {
      using other = tempDir("proctor-action-release");
      const archive = readFileSync(join(release, ASSET));
      writeFileSync(join(other.path, ASSET), archive);
      writeFileSync(join(other.path, "SHA256SUMS"), c.sums);
      const r = await install({ PROCTOR_DOWNLOAD_BASE: `file://${other.path}` });
      expect({ exitCode: r.exitCode, stderr: r.stderr, githubPath: r.githubPath }).toEqual({
        exitCode: c.exitCode,
        stderr: c.stderr(sha256(archive)),
        githubPath: null,
      });
    });
  }

  test("a missing asset names the release and the asset", async () => {
    using empty = tempDir("proctor-action-empty");
    writeFileSync(join(empty.path, "SHA256SUMS"), "");
    const r = await install({ PROCTOR_DOWNLOAD_BASE: `file://${empty.path}`, PROCTOR_VERSION: "v1.2.3" });
    expect({ exitCode: r.exitCode, last: r.stderr.trim().split("\n").at(-1) }).toEqual({
      exitCode: 1,
      last: `::error title=proctor::Cannot download file://${empty.path}/${ASSET}: check that release v1.2.3 has the asset ${ASSET}`,
    });
  });

  const badInput: {
    name: string;
    env: Record<string, string>;
    fakes: Record<string, string>;
    stderr: string;
  }[] = [
    {
      name: "an unsupported OS",
      env: { PROCTOR_DOWNLOAD_BASE: `file://${release}` },
      fakes: { uname: '[ "$1" = -s ] && echo FreeBSD || echo x86_64' },
      stderr:
        '::error title=proctor::Cannot install proctor on "FreeBSD": expected a Linux or macOS runner\n',
    },
    {
      name: "an unsupported CPU",
      env: { PROCTOR_DOWNLOAD_BASE: `file://${release}` },
      fakes: { uname: '[ "$1" = -s ] && echo Linux || echo riscv64' },
      stderr:
        '::error title=proctor::Cannot install proctor on "riscv64": expected an x86_64 or arm64 runner\n',
    },
    {
      name: "a version that is not a release tag",
      env: { PROCTOR_DOWNLOAD_BASE: `file://${release}`, PROCTOR_VERSION: "1.2" },
      fakes: {},
      stderr:
        '::error title=proctor::Cannot install proctor version "1.2": expected a release tag like v1.2.3, or latest\n',
    },
    {
      name: "no repository and no download base",
      env: {},
      fakes: {},
      stderr:
        "::error title=proctor::Cannot tell where to download proctor from: set PROCTOR_REPO (owner/name) or PROCTOR_DOWNLOAD_BASE\n",
    },
  ];
  for (const c of badInput) {
    test(`exits 2 on ${c.name}`, async () => {
      const r = await install(c.env, fakes(c.fakes));
      expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 2, stderr: c.stderr });
    });
  }

  // Which release the action installs: its own (the tag, else its package.json), never "latest"
  // unless asked, and a major tag whose package.json is another major is refused.
  const GH = "https://github.com/o/proctor/releases";
  const sources: {
    name: string;
    ref: string;
    version: string;
    pkgVersion?: string | null;
    url?: string;
    error?: string;
  }[] = [
    { name: "a full version tag", ref: "v1.2.3", version: "", url: `${GH}/download/v1.2.3/SHA256SUMS` },
    {
      name: "a major tag: its package.json",
      ref: "v1",
      version: "",
      pkgVersion: "1.4.2",
      url: `${GH}/download/v1.4.2/SHA256SUMS`,
    },
    {
      name: "a commit: its package.json",
      ref: "0123456789abcdef0123456789abcdef01234567",
      version: "",
      pkgVersion: "1.4.2",
      url: `${GH}/download/v1.4.2/SHA256SUMS`,
    },
    {
      name: "this repository's own package.json",
      ref: "main",
      version: "",
      url: `${GH}/download/v${pkg.version}/SHA256SUMS`,
    },
    {
      name: "an explicit prerelease",
      ref: "v1",
      version: "v2.0.0-rc.1",
      pkgVersion: "1.4.2",
      url: `${GH}/download/v2.0.0-rc.1/SHA256SUMS`,
    },
    { name: "latest, when asked", ref: "main", version: "latest", url: `${GH}/latest/download/SHA256SUMS` },
    {
      name: "a major tag on another major's package.json",
      ref: "v1",
      version: "",
      pkgVersion: "2.0.0",
      error:
        "Cannot install proctor v2.0.0 for action ref v1: its package.json is not a v1 release; set the version input to choose one",
    },
    {
      name: "no package.json beside the action",
      ref: "v1",
      version: "",
      pkgVersion: null,
      error:
        "Cannot tell which proctor to install: the action's package.json has no version; set the version input (v1.2.3 or latest)",
    },
  ];
  for (const c of sources) {
    test(`action ref ${c.ref}, version "${c.version}", ${c.name}: ${c.url ?? "exit 2"}`, async () => {
      const log = join(dir.path, `curl-${Math.random().toString(36).slice(2)}`);
      writeFileSync(log, "");
      const bin = fakes({
        curl: `for a in "$@"; do case "$a" in https://*) echo "$a" >>"${log}";; esac; done; exit 22`,
      });
      const action = join(dir.path, `action-${Math.random().toString(36).slice(2)}`);
      mkdirSync(action);
      if (c.pkgVersion)
        writeFileSync(
          join(action, "package.json"),
          `{\n  "name": "proctor",\n  "version": "${c.pkgVersion}"\n}\n`,
        );
      const r = await install(
        {
          PROCTOR_REPO: "o/proctor",
          PROCTOR_ACTION_REF: c.ref,
          PROCTOR_VERSION: c.version,
          ...(c.pkgVersion === undefined ? {} : { PROCTOR_ACTION_PATH: action }),
        },
        bin,
      );
      expect({
        exitCode: r.exitCode,
        urls: readFileSync(log, "utf8"),
        stderr: c.error ? r.stderr : "",
      }).toEqual(
        c.url
          ? { exitCode: 1, urls: `${c.url}\n`, stderr: "" }
          : { exitCode: 2, urls: "", stderr: `::error title=proctor::${c.error}\n` },
      );
    });
  }
});

describe("install.sh and the sandbox (kernel.apparmor_restrict_unprivileged_userns)", () => {
  const fix = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
  const refusal = `::error title=proctor::Cannot enable run-eval's sandbox: unprivileged user namespaces are restricted by AppArmor; run \`${fix}\` in a step before this one (or set sandbox: false to only install)\n`;
  const cases: {
    name: string;
    fakes: Record<string, string>;
    knob?: string;
    exitCode: number;
    logged: string;
    message: string;
  }[] = [
    {
      name: "restricted, root: flips the switch",
      fakes: { id: "echo 0", sysctl: 'echo "$@" >>"$PROCTOR_LOG"' },
      exitCode: 0,
      logged: "-w kernel.apparmor_restrict_unprivileged_userns=0\n",
      message: `proctor: allowed unprivileged user namespaces for run-eval's sandbox (${fix})\n`,
    },
    {
      name: "restricted, a user with passwordless sudo: flips it through sudo",
      fakes: { id: "echo 1001", sudo: 'echo "sudo $*" >>"$PROCTOR_LOG"', sysctl: "exit 1" },
      exitCode: 0,
      logged: "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\n",
      message: `proctor: allowed unprivileged user namespaces for run-eval's sandbox (${fix})\n`,
    },
    {
      name: "restricted, no sudo: fails with the exact fix",
      fakes: { id: "echo 1001", sudo: "echo 'sudo: a password is required' >&2; exit 1" },
      exitCode: 1,
      logged: "",
      message: refusal,
    },
    {
      name: "restricted, root, sysctl refused: fails with the exact fix",
      fakes: { id: "echo 0", sysctl: "echo 'permission denied' >&2; exit 255" },
      exitCode: 1,
      logged: "",
      message: refusal,
    },
    {
      name: "not restricted: nothing to do",
      fakes: { id: "echo 1001" },
      knob: "0\n",
      exitCode: 0,
      logged: "",
      message: "",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const log = join(dir.path, `log-${Math.random().toString(36).slice(2)}`);
      writeFileSync(log, "");
      const bin = fakes({ ...c.fakes, bwrap: "exit 0" });
      const r = await install(
        {
          PROCTOR_DOWNLOAD_BASE: `file://${release}`,
          KNOB: c.knob ?? "1\n",
          PROCTOR_SANDBOX: "true",
          PROCTOR_LOG: log,
        },
        bin,
      );
      const done = `proctor 7.7.7 (${HOST_PLATFORM}) installed in ${r.installDir}\n`;
      expect({ exitCode: r.exitCode, logged: readFileSync(log, "utf8"), stderr: r.stderr }).toEqual({
        exitCode: c.exitCode,
        logged: c.logged,
        stderr: c.exitCode === 0 ? `${c.message}${done}` : c.message,
      });
    });
  }
});
