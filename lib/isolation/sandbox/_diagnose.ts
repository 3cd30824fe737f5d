// Why user namespaces are unavailable, from the kernel's own switches, and what to change. Used to
// turn a failed probe into a message that names the cause and the remedy (fail closed, but helpful).
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One kernel switch that blocks unprivileged user namespaces, with the command that lifts it. */
export interface UsernsBlocker {
  sysctl: string;
  value: string;
  fix: string;
  why: string;
}

function readSysctl(procRoot: string, rel: string): string | null {
  try {
    return readFileSync(join(procRoot, rel), "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * Reads the switches under `procRoot` (default /proc) that can forbid unprivileged user namespaces:
 * Ubuntu's AppArmor restriction (23.10+), Debian's older unprivileged_userns_clone and the global
 * max_user_namespaces. Returns the ones set to a blocking value.
 */
export function usernsBlockers(procRoot = "/proc"): UsernsBlocker[] {
  const found: UsernsBlocker[] = [];
  const apparmor = readSysctl(procRoot, "sys/kernel/apparmor_restrict_unprivileged_userns");
  if (apparmor !== null && apparmor !== "0")
    found.push({
      sysctl: "kernel.apparmor_restrict_unprivileged_userns",
      value: apparmor,
      why: "Ubuntu's AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)",
      fix:
        "install bubblewrap from the distribution (its AppArmor profile allows user namespaces), or " +
        "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` " +
        "(persist it in /etc/sysctl.d/60-proctor-userns.conf)",
    });
  const clone = readSysctl(procRoot, "sys/kernel/unprivileged_userns_clone");
  if (clone === "0")
    found.push({
      sysctl: "kernel.unprivileged_userns_clone",
      value: clone,
      why: "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)",
      fix: "`sudo sysctl -w kernel.unprivileged_userns_clone=1`",
    });
  const max = readSysctl(procRoot, "sys/user/max_user_namespaces");
  if (max === "0")
    found.push({
      sysctl: "user.max_user_namespaces",
      value: max,
      why: "user namespaces are disabled (user.max_user_namespaces=0)",
      fix: "`sudo sysctl -w user.max_user_namespaces=15000`",
    });
  return found;
}

/** First meaningful line of a probe's stderr, for messages. */
export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "");
  return line ? line.trim().slice(0, 300) : "no output";
}
