// The seeded pseudo-random generator every statistic draws from: xoshiro128** 1.1 (Blackman and
// Vigna, 2018; 32-bit words, period 2^128 - 1), its state filled from the seed by SplitMix64, as its
// authors recommend. Same seed, same stream, under every runtime. It does not reproduce the
// original halo tool's Go PCG stream (originals.md §8): only determinism within Proctor is promised.
import { fail } from "./_check.ts";

const MASK64 = (1n << 64n) - 1n;
const TWO32 = 4294967296;
const TWO53 = 9007199254740992;

/** SplitMix64 outputs from a 64-bit state; used only to seed (BigInt is fine four times). */
function splitMix64(seed: bigint): () => bigint {
  let state = seed;
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  };
}

/** A seeded xoshiro128** generator: uint32s, floats in [0, 1), unbiased integers below n. */
export class Rng {
  #s0: number;
  #s1: number;
  #s2: number;
  #s3: number;

  /** Seeds from a safe integer or a bigint, taken modulo 2^64 (so -1 and 2^64 - 1 agree). */
  constructor(seed: number | bigint = 1) {
    if (typeof seed === "number" && !Number.isSafeInteger(seed))
      fail("seed Rng", `seed must be an integer, got ${seed}`);
    const next = splitMix64(BigInt.asUintN(64, BigInt(seed)));
    const a = next();
    const b = next();
    // Two distinct SplitMix64 outputs are never both zero, so the state is never all zero.
    this.#s0 = Number(a & 0xffffffffn);
    this.#s1 = Number(a >> 32n);
    this.#s2 = Number(b & 0xffffffffn);
    this.#s3 = Number(b >> 32n);
  }

  /** The next 32-bit unsigned integer of the stream. */
  nextUint32(): number {
    const s1 = this.#s1;
    const x = Math.imul(s1, 5);
    const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
    const t = s1 << 9;
    this.#s2 ^= this.#s0;
    this.#s3 ^= s1;
    this.#s1 = s1 ^ this.#s2;
    this.#s0 ^= this.#s3;
    this.#s2 ^= t;
    this.#s3 = (this.#s3 << 11) | (this.#s3 >>> 21);
    return result;
  }

  /** A float in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / TWO53;
  }

  /** A uniform integer in [0, n), without modulo bias (rejection sampling); n in 1..2^53. */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > TWO53)
      fail("draw an integer", `n must be an integer in 1..2^53, got ${n}`);
    if (n <= TWO32) {
      const limit = TWO32 - (TWO32 % n);
      for (;;) {
        const r = this.nextUint32();
        if (r < limit) return r % n;
      }
    }
    const limit = TWO53 - (TWO53 % n);
    for (;;) {
      const r = (this.nextUint32() >>> 11) * TWO32 + this.nextUint32();
      if (r < limit) return r % n;
    }
  }
}

/** A shuffled copy of `items` (Fisher-Yates over `rng`); the input is not changed. */
export function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = out[i]!;
    out[i] = out[j]!;
    out[j] = tmp;
  }
  return out;
}
