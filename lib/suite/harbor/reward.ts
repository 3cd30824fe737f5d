// A Harbor verifier's reward, read as Harbor reads it: /logs/verifier/reward.json when it exists (an
// object; every finite number in it is kept, booleans are not numbers), else reward.txt (one number).
// The scalar that decides the pass is reward.json's "reward", else reward.txt's number beside it, else
// its only value, else the mean of its values (a verifier that writes several checks and no total
// passes at the threshold only when they all do, for binary checks). The files come out of a container
// the agent's code ran in: only a regular file counts, and only its first bytes are read.
import { type FirstEntry, firstEntry } from "../../core/tar.ts";

/** reward.txt and reward.json are a number or a small object: more than this is not a reward. */
export const REWARD_MAX_BYTES = 64 * 1024;

/** A read reward: the score, or why there is none. */
export type Reward =
  | { ok: true; reward: number; rewards?: Record<string, number> }
  | { ok: false; why: string };

/** Parses reward.txt's text: one finite number. */
export function parseRewardText(text: string): Reward {
  const t = text.trim();
  const n = Number(t);
  if (t === "" || !Number.isFinite(n))
    return {
      ok: false,
      why: `/logs/verifier/reward.txt: expected a number, got ${JSON.stringify(t.slice(0, 40))}`,
    };
  return { ok: true, reward: n };
}

/**
 * Parses reward.json's text: an object whose finite numbers are the rewards; the score is "reward",
 * else `fallback` (reward.txt's number), else the only value, else their mean.
 */
export function parseRewardJson(text: string, fallback?: number): Reward {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, why: "/logs/verifier/reward.json: not valid JSON" };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return { ok: false, why: "/logs/verifier/reward.json: expected an object of numbers" };
  const rewards = Object.fromEntries(
    Object.entries(data).filter(([, v]) => typeof v === "number" && Number.isFinite(v)),
  ) as Record<string, number>;
  const values = Object.values(rewards);
  if (values.length === 0 && fallback === undefined)
    return { ok: false, why: "/logs/verifier/reward.json: expected an object of numbers, found none" };
  const reward =
    rewards.reward ??
    fallback ??
    (values.length === 1 ? values[0]! : values.reduce((a, b) => a + b, 0) / values.length);
  return { ok: true, reward, ...(values.length > 0 ? { rewards } : {}) };
}

/** One reward file as `docker cp CONTAINER:PATH -` gave it: absent, refused (not a regular file, too large) or its text. */
export type RewardFile =
  | { state: "absent" }
  | { state: "refused"; why: string }
  | { state: "text"; text: string };

/** Reads the tar stream of one reward file (empty: the file did not exist). */
export function rewardFile(name: string, stream: Uint8Array): RewardFile {
  const e: FirstEntry | null = firstEntry(stream, REWARD_MAX_BYTES);
  if (e === null) return { state: "absent" };
  if (e.kind !== "file")
    return { state: "refused", why: `/logs/verifier/${name}: not a regular file (${e.kind})` };
  if (e.data === undefined)
    return {
      state: "refused",
      why: `/logs/verifier/${name}: ${e.size} bytes, over the ${REWARD_MAX_BYTES}-byte cap`,
    };
  return { state: "text", text: e.data.toString("utf8") };
}

/** The reward from the two files, Harbor's precedence (reward.json first), or why there is none. */
export function readReward(json: RewardFile, txt: RewardFile, exitCode: number | null): Reward {
  for (const f of [json, txt]) if (f.state === "refused") return { ok: false, why: f.why };
  const text = txt.state === "text" ? parseRewardText(txt.text) : undefined;
  if (json.state === "text") return parseRewardJson(json.text, text?.ok ? text.reward : undefined);
  if (text !== undefined) return text;
  return {
    ok: false,
    why: `test.sh wrote no /logs/verifier/reward.txt or reward.json (exit ${exitCode ?? -1})`,
  };
}
