// The base image's Debian mirror comes from the host's own apt configuration (a user behind a company
// mirror needs exactly that), never from a host name written in Proctor: one-line and deb822 sources,
// the first non-security `deb` source; none found is one line asking for --mirror.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aptMirror, debianMirror } from "../../../lib/isolation/docker/image.ts";
import { tempDir } from "../../support/tmp.ts";

test.each<{ name: string; files: Record<string, string>; expected: string | null }>([
  {
    name: "a one-line sources.list, options and comments skipped, deb-src ignored",
    files: {
      "sources.list":
        "# the company mirror\ndeb-src http://src.corp/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.corp/debian/ bookworm main\n",
    },
    expected: "http://mirror.corp/debian",
  },
  {
    name: "deb822 .sources: the security stanza passed over",
    files: {
      "sources.list.d/debian.sources":
        "Types: deb\nURIs: http://mirror.corp/debian-security\nSuites: bookworm-security\nComponents: main\n\nTypes: deb\n# snapshot comment\nURIs: http://mirror.corp/debian\nSuites: bookworm bookworm-updates\nComponents: main\n",
    },
    expected: "http://mirror.corp/debian",
  },
  {
    name: "a disabled stanza and a disabled file are not sources",
    files: {
      "sources.list.d/a.sources": "Types: deb\nEnabled: no\nURIs: http://off.corp/debian\nSuites: bookworm\n",
      "sources.list.d/b.list.disabled": "deb http://off2.corp/debian bookworm main\n",
      "sources.list.d/c.list": "deb http://on.corp/debian bookworm main\n",
    },
    expected: "http://on.corp/debian",
  },
  { name: "nothing configured", files: {}, expected: null },
])("aptMirror: $name", ({ files, expected }) => {
  using dir = tempDir("apt");
  mkdirSync(join(dir.path, "sources.list.d"));
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir.path, rel), text);
  expect(aptMirror(dir.path)).toEqual(expected);
});

test("an explicit mirror wins; none at all is one line naming the fix", () => {
  const saved = process.env.PROCTOR_DEBIAN_MIRROR;
  process.env.PROCTOR_DEBIAN_MIRROR = "http://env.corp/debian";
  try {
    expect([debianMirror("http://flag.corp/debian"), debianMirror()]).toEqual([
      "http://flag.corp/debian",
      "http://env.corp/debian",
    ]);
  } finally {
    if (saved === undefined) delete process.env.PROCTOR_DEBIAN_MIRROR;
    else process.env.PROCTOR_DEBIAN_MIRROR = saved;
  }
});
