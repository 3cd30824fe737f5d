// What a subject (run-eval) or an agent (promotion) sees of the host: /usr and the /bin, /lib*
// links into it, a short list of /etc files, and nothing else. The repository, the case folders and
// their expected/ outputs, /root, /home, /opt, /srv, /var and every other world-readable host folder
// are simply not there; each caller adds its own writable work dir and read-only binds (the gh shim,
// an agent's install). One list for both lanes, so they cannot drift apart.
import { lstatSync, realpathSync } from "node:fs";

/** /etc entries a subject or an agent CLI may need: users, DNS, TLS roots, the loader, locale, git. */
export const ETC_BINDS = [
  "passwd",
  "group",
  "hosts",
  "host.conf",
  "resolv.conf",
  "nsswitch.conf",
  "gai.conf",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "localtime",
  "os-release",
  "mime.types",
  "gitconfig",
];

/** The top-level system directories, often links into /usr (merged /usr). */
export const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** True for a path inside /usr or one of the system directories (already in every view). */
export function isSystemPath(p: string): boolean {
  return ["/usr", ...SYSTEM_LINKS].some((s) => p === s || p.startsWith(`${s}/`));
}

/**
 * bwrap arguments that build the system part of the view on an empty root: /usr read-only, each
 * system directory as the same link (merged /usr) or a read-only bind, and the /etc list (missing
 * entries skipped). The caller adds /proc, /dev, the tmpfs mounts, its work dir and its binds.
 */
export function systemViewArgs(): string[] {
  const argv = ["--ro-bind", "/usr", "/usr"];
  for (const link of SYSTEM_LINKS) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(link);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) argv.push("--symlink", realpathSync(link).replace(/^\//, ""), link);
    else if (st.isDirectory()) argv.push("--ro-bind", link, link);
  }
  for (const name of ETC_BINDS) argv.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  return argv;
}
