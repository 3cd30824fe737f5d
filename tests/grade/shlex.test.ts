import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ShlexError, shlexSplit } from "../../lib/grade/shlex.ts";
import { FIXTURES } from "../support/grade.ts";

// The expected tokens and errors were produced by Python's shlex.split on the same inputs.
const cases = JSON.parse(readFileSync(join(FIXTURES, "shlex-cases.json"), "utf8")) as {
  input: string;
  tokens?: string[];
  error?: string;
}[];

for (const c of cases) {
  test(`shlex.split ${JSON.stringify(c.input)}`, () => {
    let got: { tokens: string[] } | { error: string };
    try {
      got = { tokens: shlexSplit(c.input) };
    } catch (error) {
      expect(error).toBeInstanceOf(ShlexError);
      got = { error: (error as Error).message };
    }
    expect(got).toEqual(c.tokens ? { tokens: c.tokens } : { error: c.error! });
  });
}
