// The `matrix:` key: the original's fixture (testdata/suites/matrix.yaml) expands into the same cells
// in the same order, the bedrock alias applies, and a bad baseline or an empty expansion is refused.
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../../lib/core/errors.ts";
import { expandMatrix, MatrixFile } from "../../../lib/suite/matrix.ts";

/** halos internal/eval/testdata/suites/matrix.yaml's `matrix:` key, as parsed. */
const ORIGINAL = {
  baseline: "claude@2.1.312/sonnet/anthropic",
  harnesses: [
    { harness: "claude", version: "2.1.312", models: ["sonnet"] },
    { harness: "codex", version: "0.60.0", models: ["gpt-5"] },
    { harness: "gemini", version: "0.13.0", models: ["gemini-2.5-pro"] },
  ],
  providers: [{ name: "anthropic" }, { name: "bedrock", aliases: { sonnet: "sonnet-bedrock" } }],
};

describe("expandMatrix", () => {
  test("the original's fixture: four cells, bedrock only where aliased", () => {
    expect(expandMatrix(MatrixFile.parse(ORIGINAL))).toEqual({
      control: "claude@2.1.312/sonnet/anthropic",
      variants: [
        {
          name: "claude@2.1.312/sonnet/anthropic",
          harness: "claude",
          version: "2.1.312",
          model: "sonnet",
          provider: "anthropic",
        },
        {
          name: "claude@2.1.312/sonnet/bedrock",
          harness: "claude",
          version: "2.1.312",
          model: "sonnet-bedrock",
          provider: "bedrock",
        },
        {
          name: "codex@0.60.0/gpt-5/anthropic",
          harness: "codex",
          version: "0.60.0",
          model: "gpt-5",
          provider: "anthropic",
        },
        {
          name: "gemini@0.13.0/gemini-2.5-pro/anthropic",
          harness: "gemini",
          version: "0.13.0",
          model: "gemini-2.5-pro",
          provider: "anthropic",
        },
      ],
    });
  });

  test("no providers: two-part names, the first cell is the control, settings carried", () => {
    const m = MatrixFile.parse({
      harnesses: [{ harness: "claude", version: "1", models: ["a", "b"], settings: "s.json" }],
    });
    expect(expandMatrix(m)).toEqual({
      control: "claude@1/a",
      variants: [
        { name: "claude@1/a", harness: "claude", version: "1", model: "a", settings: "s.json" },
        { name: "claude@1/b", harness: "claude", version: "1", model: "b", settings: "s.json" },
      ],
    });
  });

  const refused = [
    {
      name: "baseline names no cell",
      matrix: { ...ORIGINAL, baseline: "nope" },
      message:
        'matrix.baseline: "nope" is not a cell (cells: "claude@2.1.312/sonnet/anthropic", "claude@2.1.312/sonnet/bedrock", "codex@0.60.0/gpt-5/anthropic", "gemini@0.13.0/gemini-2.5-pro/anthropic")',
    },
    {
      name: "aliases skip every model",
      matrix: {
        harnesses: [{ harness: "codex", models: ["gpt-5"] }],
        providers: [{ name: "bedrock", aliases: { sonnet: "x" } }],
      },
      message: "matrix: expands to no cells (every provider's aliases skip every model)",
    },
  ];
  test.each(refused)("refused: $name", ({ matrix, message }) => {
    let caught: unknown;
    try {
      expandMatrix(MatrixFile.parse(matrix));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toEqual(message);
  });
});

describe("MatrixFile", () => {
  const bad = [
    { name: "no harnesses", value: { harnesses: [] } },
    { name: "no models", value: { harnesses: [{ harness: "claude", models: [] }] } },
    { name: "unknown key", value: { harnesses: [{ harness: "claude", models: ["m"] }], cells: 3 } },
    {
      name: "provider without a name",
      value: { harnesses: [{ harness: "claude", models: ["m"] }], providers: [{}] },
    },
  ];
  test.each(bad)("refuses $name", ({ value }) => {
    expect(MatrixFile.safeParse(value).success).toEqual(false);
  });
});
