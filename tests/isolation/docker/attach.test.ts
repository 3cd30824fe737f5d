// When a phase runs attached (lib/isolation/docker/_attach.ts): one command, no secrets, the runner's
// own numeric user, files only under /tmp or /work; everything else keeps the original's verbs, with
// /work unpacked by the first exec under the same user and file rules.
import { describe, expect, test } from "bun:test";
import {
  attachable,
  commandStderr,
  phaseCommand,
  START_MARK,
  UNPACK_MARK,
  unpackable,
  unpackThen,
} from "../../../lib/isolation/docker/_attach.ts";
import type { PhaseSpec } from "../../../lib/isolation/docker/index.ts";

const spec: PhaseSpec = {
  runId: "r1",
  image: "i",
  phase: "agent",
  argv: ["true"],
  timeoutMs: 1,
  network: "none",
};

describe("attachable", () => {
  test.each<{ name: string; extra: Partial<PhaseSpec>; user: string; want: boolean }>([
    { name: "one argv", extra: {}, user: "1000:1000", want: true },
    { name: "one command", extra: { commands: [["a"]] }, user: "1000", want: true },
    {
      name: "files under /tmp and /work",
      extra: { files: [f("/tmp/home/s.json"), f("/work/x")] },
      user: "1000:1000",
      want: true,
    },
    { name: "two commands", extra: { commands: [["a"], ["b"]] }, user: "1000:1000", want: false },
    { name: "no command", extra: { commands: [] }, user: "1000:1000", want: false },
    {
      name: "secrets (only an exec takes them by name)",
      extra: { secretEnvNames: ["K"] },
      user: "1000:1000",
      want: false,
    },
    { name: "a file under /etc", extra: { files: [f("/etc/x.json")] }, user: "1000:1000", want: false },
    { name: "a file at /tmp itself", extra: { files: [f("/tmp/")] }, user: "1000:1000", want: false },
    { name: "another phase user", extra: { user: "0" }, user: "1000:1000", want: false },
    { name: "a user name (the snapshot's owner is numeric)", extra: {}, user: "agent", want: false },
  ])("$name", ({ extra, user, want }) => {
    expect(attachable({ ...spec, ...extra }, user)).toEqual(want);
  });
});

describe("unpackable (a detached phase's first exec unpacks /work)", () => {
  test.each<{ name: string; extra: Partial<PhaseSpec>; want: boolean }>([
    {
      name: "two commands and a secret",
      extra: { commands: [["a"], ["b"]], secretEnvNames: ["K"] },
      want: true,
    },
    { name: "a file under /etc", extra: { files: [f("/etc/x")] }, want: false },
    { name: "another phase user", extra: { user: "2000" }, want: false },
  ])("$name", ({ extra, want }) => {
    expect(unpackable({ ...spec, ...extra }, "1000:1000")).toEqual(want);
  });

  test("the exec unpacks, then becomes the command (exec: its exit and signals are its own)", () => {
    const [sh, c, script, arg0, ...argv] = unpackThen(2048, ["codex", "exec", "-"]);
    expect([sh, c, arg0, argv]).toEqual(["sh", "-c", "proctor-phase", ["codex", "exec", "-"]]);
    expect(script?.startsWith("e=$(head -c 2048 | tar -xpf - -C / 2>&1 >/dev/null) || {")).toEqual(true);
    expect(script?.endsWith('; exec "$@"')).toEqual(true);
  });
});

describe("phaseCommand", () => {
  test("unpacks exactly the tar's bytes, marks the start, then runs the command as sh's child with the rest of stdin", () => {
    const [sh, c, script, arg0, ...argv] = phaseCommand(10240, ["echo", "it's"], false);
    expect([sh, c, arg0, argv]).toEqual(["sh", "-c", "proctor-phase", ["echo", "it's"]]);
    expect(script).toBe(
      `e=$(head -c 10240 | tar -xpf - -C / 2>&1 >/dev/null) || { printf '%s\\n' "$e" '${UNPACK_MARK}' >&2; exit 125; }; printf '%s\\n' '${START_MARK}' >&2; "$@"`,
    );
  });

  test("bridged: the forwarder in the background, the command waits for it", () => {
    const cmd = phaseCommand(512, ["agent"], true);
    expect(
      cmd[2]?.endsWith(
        `; 'socat' 'TCP-LISTEN:41800,bind=127.0.0.1,reuseaddr,fork' 'UNIX-CONNECT:/run/proctor/model.sock' & "$@"`,
      ),
    ).toEqual(true);
    expect([cmd[4], cmd[5], cmd.at(-1)]).toEqual(["bash", "-c", "agent"]);
  });
});

describe("commandStderr: the command's stderr is what follows the first start mark", () => {
  const mark = `${START_MARK}\n`;
  const refusal =
    "docker: Error response from daemon: No such image: x\n\nRun 'docker run --help' for more information\n";
  test.each<{ name: string; stderr: string; want: { started: boolean; stderr: string } }>([
    { name: "the mark alone", stderr: mark, want: { started: true, stderr: "" } },
    {
      name: "the command's words after it",
      stderr: `${mark}oops\n`,
      want: { started: true, stderr: "oops\n" },
    },
    {
      name: "the client's warnings before it are not the command's",
      stderr: `WARNING: Your kernel does not support swap limit capabilities\n${mark}oops\n`,
      want: { started: true, stderr: "oops\n" },
    },
    {
      name: "a command that prints the engine's refusal and the mark itself: still its own words",
      stderr: `${mark}${refusal}${mark}`,
      want: { started: true, stderr: `${refusal}${mark}` },
    },
    { name: "no mark: the engine refused", stderr: refusal, want: { started: false, stderr: refusal } },
    {
      name: "no mark: the unpack failed",
      stderr: `tar: work: Cannot mkdir\n${UNPACK_MARK}\n`,
      want: { started: false, stderr: `tar: work: Cannot mkdir\n${UNPACK_MARK}\n` },
    },
    {
      name: "the mark inside a line is not the mark",
      stderr: `x${mark}`,
      want: { started: false, stderr: `x${mark}` },
    },
    { name: "nothing at all", stderr: "", want: { started: false, stderr: "" } },
  ])("$name", ({ stderr, want }) => {
    expect(commandStderr(stderr)).toEqual(want);
  });
});

function f(path: string) {
  return { path, content: "" };
}
