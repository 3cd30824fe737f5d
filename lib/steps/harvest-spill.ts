// Where harvest keeps what its later stages need, so its memory stays flat in the store's size: the
// per-pair facts of pass 1 and the chosen steps go to a spill file as records, and memory holds only
// fixed-size numbers per pair (columns). The spill is an anonymous file (created 0600 in a private
// temp directory and unlinked at once, so nothing is left behind even on a crash) and every record is
// sealed with AES-256-GCM under a key that lives only in this process: it quotes traffic (tool calls).
import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { accessProblem } from "../core/confined.ts";
import { UpstreamError } from "../core/errors.ts";
import { readAt } from "../core/fsx.ts";

/** Where a record is in the spill. */
export interface SpillRef {
  offset: number;
  length: number;
}

const NONCE = 12;
const TAG = 16;

/** An append-only file of sealed JSON records, read back by offset; close() drops it. */
export class Spill {
  readonly #fd: number;
  readonly #key = randomBytes(32);
  #size = 0;
  #count = 0;

  constructor() {
    let dir: string;
    try {
      dir = mkdtempSync(join(tmpdir(), "proctor-harvest-"));
    } catch (error) {
      throw new UpstreamError(
        `Cannot harvest: no spill file in the temp dir "${tmpdir()}" (TMPDIR): ${accessProblem(error)}`,
        { cause: error },
      );
    }
    const path = join(dir, "spill");
    try {
      this.#fd = openSync(path, "wx+", 0o600);
    } finally {
      try {
        unlinkSync(path);
      } catch {
        // never created
      }
      rmdirSync(dir);
    }
  }

  /** Appends one record (any JSON value); its ref reads it back. */
  append(value: unknown): SpillRef {
    const nonce = Buffer.alloc(NONCE);
    nonce.writeUIntBE(++this.#count, 0, 6); // unique per record under this key
    const cipher = createCipheriv("aes-256-gcm", this.#key, nonce);
    const body = Buffer.concat([
      nonce,
      cipher.update(JSON.stringify(value), "utf8"),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    writeSync(this.#fd, body, 0, body.length, this.#size);
    const ref = { offset: this.#size, length: body.length };
    this.#size += body.length;
    return ref;
  }

  /** Reads back the record at `offset` of `length` bytes. */
  read(offset: number, length: number): unknown {
    const raw = readAt(this.#fd, offset, length);
    const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, NONCE));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    const plain = Buffer.concat([decipher.update(raw.subarray(NONCE, raw.length - TAG)), decipher.final()]);
    return JSON.parse(plain.toString("utf8"));
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** A growable column of numbers (8 bytes each): the per-pair facts memory keeps. */
export class Column {
  #data = new Float64Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(v: number): void {
    if (this.#length === this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.#length++] = v;
  }

  at(i: number): number {
    return this.#data[i] as number;
  }

  set(i: number, v: number): void {
    this.#data[i] = v;
  }
}

/**
 * A map from 53-bit hashes to row indices in two typed arrays (open addressing, linear probing): 24
 * bytes a row where a Map<number, number> took about 130, the largest part of pass 1's growth.
 */
export class HashIndex {
  #keys = new Float64Array(1024);
  #vals = new Uint32Array(1024); // row index + 1; 0 marks a free slot
  #size = 0;

  get(key: number): number | undefined {
    const mask = this.#keys.length - 1;
    for (let i = (key >>> 0) & mask; ; i = (i + 1) & mask) {
      const v = this.#vals[i] as number;
      if (v === 0) return undefined;
      if (this.#keys[i] === key) return v - 1;
    }
  }

  /** Sets `key` (not yet present) to `value`. */
  add(key: number, value: number): void {
    if ((this.#size + 1) * 2 > this.#keys.length) this.#grow();
    this.#put(key, value + 1);
    this.#size++;
  }

  #put(key: number, stored: number): void {
    const mask = this.#keys.length - 1;
    let i = (key >>> 0) & mask;
    while (this.#vals[i] !== 0) i = (i + 1) & mask;
    this.#keys[i] = key;
    this.#vals[i] = stored;
  }

  #grow(): void {
    const keys = this.#keys;
    const vals = this.#vals;
    this.#keys = new Float64Array(keys.length * 2);
    this.#vals = new Uint32Array(vals.length * 2);
    for (let i = 0; i < keys.length; i++) if (vals[i] !== 0) this.#put(keys[i] as number, vals[i] as number);
  }
}
