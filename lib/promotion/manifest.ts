// The sealed manifest of a run directory (ours; the original authenticated nothing): every file the
// run directory holds ({path, sha256, bytes}, code-unit order) and provenance.json's SHA-256, under an
// HMAC-SHA256 whose key is HKDF-SHA256 of the sealed nonce and seed (sealed/order.json, operator
// only). A flipped byte in any file, a removed or added file, a link or FIFO anywhere, or any edit
// of provenance then fails `verify`; only a holder of sealed/order.json can re-seal. Files are read by
// a descriptor walk (lib/leak/walk.ts, lib/core/confined.ts): nothing is followed through a link.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { closeSync } from "node:fs";
import { join } from "node:path";
import { codepointCompare } from "../compat/py/text.ts";
import { ConfinedPathError, openConfined, readConfined } from "../core/confined.ts";
import { writeConfined } from "../core/confined-write.ts";
import { sha256Fd } from "../core/hash.ts";
import { walkTree } from "../leak/walk.ts";
import { type Artifact, SealedManifest, SealedOrder, sortedJson } from "./records.ts";

export const MANIFEST = "sealed/manifest.json";
export const PROVENANCE = "provenance.json";
const SALT = "proctor/promotion/sealed-manifest";
const INFO = "hmac-sha256 v1";
/** What verify reports: the first problem found and the file it is about. */
export type SealCheck =
  | { ok: true; files: number }
  | { ok: false; unsealed: boolean; reason: string; file: string };

function macKey(order: SealedOrder): Buffer {
  return Buffer.from(hkdfSync("sha256", `${order.nonce}:${order.seed}`, SALT, INFO, 32));
}

function macOf(key: Buffer, m: Omit<SealedManifest, "mac">): string {
  const body = sortedJson({
    version: m.version,
    mac_alg: m.mac_alg,
    key: m.key,
    files: m.files,
    provenance_sha256: m.provenance_sha256,
  });
  return createHmac("sha256", key).update(body).digest("hex");
}

/** SHA-256 and size of one file under `root`, streamed, no link followed at any component. */
export function hashConfined(root: string, rel: string): { sha256: string; bytes: number } {
  const f = openConfined(root, rel);
  try {
    return sha256Fd(f.fd);
  } finally {
    closeSync(f.fd);
  }
}

/**
 * `agent-eval report`'s default output: a view derived from provenance and the key, written after the
 * run (often after verify), read by neither verdict nor verify. It is neither sealed nor refused,
 * as long as it is a regular file.
 */
export const REPORT = "report.html";

/** Every entry of the run directory but the manifest, provenance and the report: files and the rest. */
function entries(runDir: string): { files: string[]; odd: { path: string; type: string }[] } {
  const files: string[] = [];
  const odd: { path: string; type: string }[] = [];
  for (const e of walkTree(runDir)) {
    if (e.path === REPORT && e.type === "file") continue;
    if (e.path === MANIFEST || e.path === PROVENANCE || e.type === "dir") continue;
    if (e.type === "file") files.push(e.path);
    else odd.push({ path: e.path, type: e.type });
  }
  return { files: files.sort(codepointCompare), odd };
}

function readOrder(runDir: string): SealedOrder {
  return SealedOrder.parse(JSON.parse(readConfined(runDir, "sealed/order.json").toString("utf8")));
}

/** Writes sealed/manifest.json for the run directory as it is now (the seal's key from sealed/order.json). */
export function sealRun(runDir: string): SealedManifest {
  const { files, odd } = entries(runDir);
  if (odd.length > 0)
    throw new ConfinedPathError(join(runDir, odd[0]!.path), odd[0]!.type === "link" ? "link" : "not-regular");
  const listed: Artifact[] = files.map((path) => ({ path, ...hashConfined(runDir, path) }));
  const body = {
    version: 1 as const,
    mac_alg: "HMAC-SHA256" as const,
    key: "HKDF-SHA256(sealed/order.json nonce:seed)" as const,
    files: listed,
    provenance_sha256: hashConfined(runDir, PROVENANCE).sha256,
  };
  const manifest = { ...body, mac: macOf(macKey(readOrder(runDir)), body) };
  writeConfined(runDir, MANIFEST, sortedJson(manifest));
  return manifest;
}

/** Checks the run directory against its sealed manifest; the first problem names its file. */
export function checkSeal(runDir: string): SealCheck {
  const fail = (reason: string, file: string, unsealed = false): SealCheck => ({
    ok: false,
    unsealed,
    reason,
    file,
  });
  let manifest: SealedManifest;
  try {
    manifest = SealedManifest.parse(JSON.parse(readConfined(runDir, MANIFEST).toString("utf8")));
  } catch (error) {
    if (error instanceof ConfinedPathError && error.reason === "missing")
      return fail(`not sealed: no ${MANIFEST}`, MANIFEST, true);
    return fail("sealed manifest is malformed", MANIFEST);
  }
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  const current = (path: string) => {
    try {
      return hashConfined(runDir, path);
    } catch {
      return null;
    }
  };
  const changed = (path: string): string | null => {
    const want = path === PROVENANCE ? null : listed.get(path);
    const got = current(path);
    if (!got) return `missing artifact ${path}`;
    if (path === PROVENANCE)
      return got.sha256 === manifest.provenance_sha256 ? null : `artifact changed: ${path}`;
    if (!want) return `unexpected file ${path}`;
    return got.sha256 === want.sha256 && got.bytes === want.bytes ? null : `artifact changed: ${path}`;
  };
  let order: SealedOrder;
  try {
    order = readOrder(runDir);
  } catch {
    const why = changed("sealed/order.json");
    return fail(why ?? "sealed order is malformed", "sealed/order.json");
  }
  const { mac, ...body } = manifest;
  const expected = Buffer.from(macOf(macKey(order), body), "hex");
  if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) {
    // A wrong MAC means the manifest or the key's source changed: name the one that did.
    const why = changed("sealed/order.json");
    if (why) return fail(why, "sealed/order.json");
    return fail("sealed manifest does not match its MAC", MANIFEST);
  }
  const why = changed(PROVENANCE);
  if (why) return fail(why, PROVENANCE);
  const { files, odd } = entries(runDir);
  for (const f of manifest.files) {
    const problem = changed(f.path);
    if (problem) return fail(problem, f.path);
  }
  const first = odd[0];
  if (first) return fail(`unexpected ${first.type === "link" ? "link" : "file"} ${first.path}`, first.path);
  for (const path of files) if (!listed.has(path)) return fail(`unexpected file ${path}`, path);
  return { ok: true, files: manifest.files.length + 1 };
}
