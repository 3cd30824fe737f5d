// A trial cut short because the run is stopping (a signal under Docker) says cancelled (issue 26): its
// kind is `cancelled`, not the copy or start failure its removed container caused on the way, and its
// progress word and failure reason say so and that --resume runs it again.
import { expect, test } from "bun:test";
import { trialWord } from "../../lib/suite/cmd.ts";
import type { Trial } from "../../lib/suite/scorecard/index.ts";
import { infraKindOf } from "../../lib/suite/trial-context.ts";

test.each([
  { message: "cancelled: the run is stopping", kind: "cancelled" },
  { message: "cancelled: the run is stopping (copy out: docker cp exited 1)", kind: "cancelled" },
  { message: "copy out: docker cp exited 1", kind: "copy" },
  { message: "no such image: eval-claude:1", kind: "image" },
  { message: "docker run exited 125", kind: "start" },
])("infraKindOf($message) is $kind", ({ message, kind }) => {
  expect(infraKindOf(message)).toEqual(kind);
});

const trial = (extra: Partial<Trial>): Trial =>
  ({
    task: "t",
    variant: "v",
    repeat: 0,
    pass: false,
    costUSD: 0,
    tokens: 0,
    turns: 0,
    toolCalls: 0,
    toolErrors: 0,
    wallMs: 1,
    ...extra,
  }) as Trial;

test.each([
  {
    name: "cancelled",
    t: trial({
      infra: "cancelled",
      error: "agent: cancelled: the run is stopping (copy out: docker cp exited 1)",
    }),
    word: "cancelled (the run was stopped; --resume runs it again)",
  },
  {
    name: "a copy failure",
    t: trial({ infra: "copy", error: "check: copy out: disk full" }),
    word: "infra copy: check: copy out: disk full",
  },
])("the progress word of $name", ({ t, word }) => {
  expect(trialWord(t)).toEqual(word);
});
