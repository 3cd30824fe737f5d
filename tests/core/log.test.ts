// The logger and the progress line: plain lines on stderr as given (the tested stderr texts stay the
// same), colour only where NO_COLOR, FORCE_COLOR, a TTY and CI allow it, CONSOLA_LEVEL honoured.
import { describe, expect, test } from "bun:test";
import { createLogger, isInteractive, useColor } from "../../lib/core/log.ts";

describe("useColor", () => {
  const cases = [
    { name: "a TTY outside CI", env: {}, tty: true, want: true },
    { name: "not a TTY", env: {}, tty: false, want: false },
    { name: "a TTY in CI", env: { CI: "true" }, tty: true, want: false },
    { name: "NO_COLOR wins over a TTY", env: { NO_COLOR: "1" }, tty: true, want: false },
    {
      name: "NO_COLOR wins over FORCE_COLOR",
      env: { NO_COLOR: "1", FORCE_COLOR: "1" },
      tty: true,
      want: false,
    },
    { name: "an empty NO_COLOR is unset", env: { NO_COLOR: "" }, tty: true, want: true },
    { name: "FORCE_COLOR off a TTY", env: { FORCE_COLOR: "1" }, tty: false, want: true },
    { name: "FORCE_COLOR in CI", env: { FORCE_COLOR: "true", CI: "1" }, tty: false, want: true },
    { name: "FORCE_COLOR=0 turns it off", env: { FORCE_COLOR: "0" }, tty: true, want: false },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect({ color: useColor(c.env, { isTTY: c.tty }) }).toEqual({ color: c.want });
    });

  test("isInteractive: a TTY outside CI only", () => {
    expect([
      isInteractive({}, { isTTY: true }),
      isInteractive({ CI: "1" }, { isTTY: true }),
      isInteractive({}, {}),
    ]).toEqual([true, false, false]);
  });
});

describe("createLogger", () => {
  const logged = (env: Record<string, string | undefined>, isTTY: boolean, verbose = false) => {
    const lines: string[] = [];
    const log = createLogger("demo", { env, isTTY, verbose, write: (t) => lines.push(t) });
    log.error("✗ pair a: timed out");
    log.warn("warning: --local runs on this host");
    log.info("✓ done");
    log.info("✓ done");
    log.debug("details");
    return lines;
  };
  const cases = [
    {
      name: "plain lines as given, debug hidden, repeats kept",
      env: {},
      tty: false,
      want: ["✗ pair a: timed out\n", "warning: --local runs on this host\n", "✓ done\n", "✓ done\n"],
    },
    {
      name: "on a TTY the glyph is coloured",
      env: {},
      tty: true,
      want: [
        "\x1b[31m✗\x1b[39m pair a: timed out\n",
        "warning: --local runs on this host\n",
        "\x1b[32m✓\x1b[39m done\n",
        "\x1b[32m✓\x1b[39m done\n",
      ],
    },
    {
      name: "NO_COLOR on a TTY: plain",
      env: { NO_COLOR: "1" },
      tty: true,
      want: ["✗ pair a: timed out\n", "warning: --local runs on this host\n", "✓ done\n", "✓ done\n"],
    },
    {
      name: "CONSOLA_LEVEL=0: errors only",
      env: { CONSOLA_LEVEL: "0" },
      tty: false,
      want: ["✗ pair a: timed out\n"],
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect(logged(c.env, c.tty)).toEqual(c.want);
    });

  test("--verbose shows debug lines", () => {
    expect(logged({}, false, true).at(-1)).toEqual("details\n");
  });
});
