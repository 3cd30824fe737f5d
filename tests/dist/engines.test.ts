// `npm ci` warns about nothing (issue 26): package.json states the Node versions Proctor supports
// (engines.node), every package the lock installs accepts the lowest of them (kubernetes-models 5
// wanted Node 22 and npm ci printed EBADENGINE on Node 20), and every package with an install script
// is approved in allowScripts (npm 11 lists the others after each install; npm 12 skips their scripts,
// and bun's and deno's postinstall fetch the runtimes).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../support/tools.ts";

interface LockEntry {
  engines?: { node?: string };
  hasInstallScript?: boolean;
  optional?: boolean;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  engines?: { node?: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const installed = Object.entries(lock.packages).filter(([path]) => path !== "");
const nameOf = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);

test("package.json states the Node versions, from 20 on (what lib/ runs on, besides Bun and Deno)", () => {
  expect(pkg.engines).toEqual({ node: ">=20" });
});

test("every package npm ci installs accepts Node 20.0.0 and the running Node", () => {
  const refused = installed
    .filter(([, e]) => e.engines?.node !== undefined)
    .flatMap(([path, e]) =>
      ["20.0.0", process.versions.node]
        .filter((v) => !Bun.semver.satisfies(v, e.engines?.node as string))
        .map((v) => `${nameOf(path)} (${e.engines?.node}) refuses Node ${v}`),
    );
  expect(refused).toEqual([]);
});

test("every install script is approved in allowScripts, nothing else is", () => {
  const scripts = [...new Set(installed.filter(([, e]) => e.hasInstallScript).map(([p]) => nameOf(p)))];
  expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual(scripts.sort());
});
