// A Harbor verifier's reward, read as Harbor reads it (reward.json first, every number kept) out of a
// container the agent's code ran in: only a regular file counts, and only up to the cap.
import { expect, test } from "bun:test";
import { tar } from "../../../lib/core/tar.ts";
import {
  parseRewardJson,
  parseRewardText,
  REWARD_MAX_BYTES,
  type Reward,
  type RewardFile,
  readReward,
  rewardFile,
} from "../../../lib/suite/harbor/reward.ts";

test.each<{ name: string; text: string; expected: Reward }>([
  { name: "a binary pass", text: "1\n", expected: { ok: true, reward: 1 } },
  { name: "a fraction, kept", text: " 0.6667 ", expected: { ok: true, reward: 0.6667 } },
  {
    name: "not a number",
    text: "passed",
    expected: { ok: false, why: '/logs/verifier/reward.txt: expected a number, got "passed"' },
  },
  {
    name: "empty",
    text: "\n",
    expected: { ok: false, why: '/logs/verifier/reward.txt: expected a number, got ""' },
  },
])("reward.txt: $name", ({ text, expected }) => {
  expect(parseRewardText(text)).toEqual(expected);
});

test.each<{ name: string; text: string; fallback?: number; expected: Reward }>([
  {
    name: "reward among other figures (booleans and strings are not rewards)",
    text: '{"reward": 0.5, "words": 2, "note": "x", "ok": true}',
    expected: { ok: true, reward: 0.5, rewards: { reward: 0.5, words: 2 } },
  },
  {
    name: "the only value",
    text: '{"accuracy": 0.25}',
    expected: { ok: true, reward: 0.25, rewards: { accuracy: 0.25 } },
  },
  {
    name: "several checks and no reward: their mean, every one kept",
    text: '{"compiles": 1, "tests_pass": 0, "style": 1, "lint": 0}',
    expected: { ok: true, reward: 0.5, rewards: { compiles: 1, tests_pass: 0, style: 1, lint: 0 } },
  },
  {
    name: "several checks and reward.txt beside them: reward.txt's number",
    text: '{"a": 1, "b": 0}',
    fallback: 1,
    expected: { ok: true, reward: 1, rewards: { a: 1, b: 0 } },
  },
  { name: "not JSON", text: "{", expected: { ok: false, why: "/logs/verifier/reward.json: not valid JSON" } },
  {
    name: "a bare number",
    text: "1",
    expected: { ok: false, why: "/logs/verifier/reward.json: expected an object of numbers" },
  },
  {
    name: "no number in it",
    text: '{"note": "x"}',
    expected: { ok: false, why: "/logs/verifier/reward.json: expected an object of numbers, found none" },
  },
])("reward.json: $name", ({ text, fallback, expected }) => {
  expect(parseRewardJson(text, fallback)).toEqual(expected);
});

const file = (data: string) => tar([{ kind: "file", name: "reward.txt", data: Buffer.from(data) }]);

test.each<{ name: string; stream: Uint8Array; expected: RewardFile }>([
  { name: "absent (docker cp gave nothing)", stream: new Uint8Array(0), expected: { state: "absent" } },
  { name: "a regular file", stream: file("1\n"), expected: { state: "text", text: "1\n" } },
  {
    name: "a link, never followed",
    stream: tar([{ kind: "symlink", name: "reward.txt", target: "/proc/self/environ" }]),
    expected: { state: "refused", why: "/logs/verifier/reward.txt: not a regular file (symlink)" },
  },
  {
    name: "a directory",
    stream: tar([{ kind: "dir", name: "reward.txt/" }]),
    expected: { state: "refused", why: "/logs/verifier/reward.txt: not a regular file (dir)" },
  },
  {
    name: "over the cap",
    stream: file("1".repeat(REWARD_MAX_BYTES + 1)),
    expected: {
      state: "refused",
      why: `/logs/verifier/reward.txt: ${REWARD_MAX_BYTES + 1} bytes, over the ${REWARD_MAX_BYTES}-byte cap`,
    },
  },
])("reward file: $name", ({ stream, expected }) => {
  expect(rewardFile("reward.txt", stream)).toEqual(expected);
});

const text = (t: string): RewardFile => ({ state: "text", text: t });
const absent: RewardFile = { state: "absent" };

test.each<{ name: string; json: RewardFile; txt: RewardFile; expected: Reward }>([
  {
    name: "reward.json wins over reward.txt",
    json: text('{"reward": 0}'),
    txt: text("1"),
    expected: { ok: true, reward: 0, rewards: { reward: 0 } },
  },
  { name: "reward.txt alone", json: absent, txt: text("0.5"), expected: { ok: true, reward: 0.5 } },
  {
    name: "neither",
    json: absent,
    txt: absent,
    expected: { ok: false, why: "test.sh wrote no /logs/verifier/reward.txt or reward.json (exit 1)" },
  },
  {
    name: "a refused file is no reward, even beside a good one",
    json: absent,
    txt: { state: "refused", why: "/logs/verifier/reward.txt: not a regular file (symlink)" },
    expected: { ok: false, why: "/logs/verifier/reward.txt: not a regular file (symlink)" },
  },
])("readReward: $name", ({ json, txt, expected }) => {
  expect(readReward(json, txt, 1)).toEqual(expected);
});
