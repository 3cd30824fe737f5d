// What decides and starts an attached phase (lib/isolation/docker/index.ts): the phase runs as its
// container's own process, fed /work as a tar on stdin (one attached `docker run -i`), instead of run -d
// + docker cp + exec: the copy-in's archive helper and the exec were each an engine round trip. This
// file says when a phase may take that path, builds the container's command, and tells the command's
// stderr from what came before it (the engine's refusal, the client's warnings, a failed unpack).
import type { PhaseSpec } from "../contract.ts";
import { forwarderCommand, waitForForwarder } from "./bridge.ts";
import { BRIDGE_MOUNT } from "./engine.ts";

/** The last stderr line of a phase wrapper that could not unpack /work as the phase user. */
export const UNPACK_MARK = "proctor: cannot unpack /work as the phase user";
export const UNPACK_FAILED = Symbol("unpack failed");
/** The stderr line an attached container writes once /work is unpacked, just before the command starts. */
export const START_MARK = "proctor: the phase command starts";
/** An attached phase's time limit covers its container's start and /work's unpack too: this much more. */
export const START_ALLOWANCE_MS = 3_000;

/**
 * Whether the container's own tar can unpack /work for a phase: the runner's own numeric user (it owns
 * the snapshot; an unprivileged tar cannot give files away), files only where that user writes.
 */
export function unpackable(spec: PhaseSpec, user: string): boolean {
  return (
    (spec.user ?? user) === user &&
    /^\d+(:\d+)?$/.test(user) &&
    (spec.files ?? []).every((f) => /^\/(tmp|work)\/./.test(f.path))
  );
}

/**
 * Whether a phase can run attached: unpackable, one command, and no secrets (`docker run -e` would
 * show them in inspect; only an exec takes them by name).
 */
export function attachable(spec: PhaseSpec, user: string): boolean {
  return (
    (spec.commands === undefined || spec.commands.length === 1) &&
    !spec.secretEnvNames?.length &&
    unpackable(spec, user)
  );
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Why an image's own tar is passed over for a snapshot with sparse members (the engine copies it in). */
export const NOT_GNU_TAR =
  "proctor: this image's tar is not GNU tar, which alone keeps a sparse file's holes";

/**
 * sh that unpacks the first `tarBytes` of stdin at / (tar's chatter shown only on failure, then the
 * mark). With `sparse` members only GNU tar may: another tar could skip them without a word.
 */
function unpack(tarBytes: number, sparse: boolean): string {
  const gnu = sparse
    ? `tar --version 2>/dev/null | grep -q 'GNU tar' || { printf '%s\\n' ${quote(NOT_GNU_TAR)} ${quote(UNPACK_MARK)} >&2; exit 125; }; `
    : "";
  return `${gnu}e=$(head -c ${tarBytes} | tar -xpf - -C / 2>&1 >/dev/null) || { printf '%s\\n' "$e" ${quote(UNPACK_MARK)} >&2; exit 125; }`;
}

/**
 * The container's own process for an attached phase: unpack /work and the files from stdin, mark the
 * start on stderr, start the forwarder when bridged, then the command as sh's child (not PID 1, as
 * under exec) with the rest of stdin.
 */
export function phaseCommand(tarBytes: number, argv: string[], bridged: boolean, sparse = false): string[] {
  const forward = bridged ? `${forwarderCommand(BRIDGE_MOUNT).map(quote).join(" ")} & ` : "";
  return [
    "sh",
    "-c",
    `${unpack(tarBytes, sparse)}; printf '%s\\n' ${quote(START_MARK)} >&2; ${forward}"$@"`,
    "proctor-phase",
    ...(bridged ? waitForForwarder(argv) : argv),
  ];
}

/** A detached phase's first exec: unpack /work and the files from stdin, then become the command. */
export function unpackThen(tarBytes: number, argv: string[], sparse = false): string[] {
  return ["sh", "-c", `${unpack(tarBytes, sparse)}; exec "$@"`, "proctor-phase", ...argv];
}

/**
 * An attached run's stderr split at the first START_MARK: whether the command started, and its own
 * stderr (everything after the mark; without one, all of it: the client's or the unpack's words). What
 * the command prints comes after the mark, so it can never pass for the engine's refusal.
 */
export function commandStderr(stderr: string): { started: boolean; stderr: string } {
  const line = `${START_MARK}\n`;
  const at = `\n${stderr}`.indexOf(`\n${line}`);
  return at < 0 ? { started: false, stderr } : { started: true, stderr: stderr.slice(at + line.length) };
}
