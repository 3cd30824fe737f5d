// The host side of the model bridge. Agent containers run with `--network none`, so the only way
// out is a Unix socket in a directory bind-mounted into the container; a forwarder on the
// container's own loopback (socat, started as the container's first process) relays to it, and this
// proxy relays the socket to the variant's model endpoint and to nothing else. It pipes bytes
// (protocol-agnostic, streaming-safe); an https endpoint gets TLS from here, so the agent speaks
// plain HTTP to 127.0.0.1 and never holds a route to anywhere else.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { ToolError } from "../../core/errors.ts";
import { BRIDGE_PORT } from "./engine.ts";

/** A running bridge for one agent phase. */
export interface ModelBridge {
  /** The directory to mount (holds model.sock). */
  dir: string;
  /** PROCTOR_MODEL_URL inside the container. */
  innerUrl: string;
  close(): Promise<void>;
}

/** Parses the model URL: http or https with a host; anything else is the caller's error. */
export function parseModelUrl(url: string): { tls: boolean; host: string; port: number; path: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ToolError(`Invalid model URL "${url}": expected http://host:port or https://host`, 1);
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname)
    throw new ToolError(`Invalid model URL "${url}": expected http://host:port or https://host`, 1);
  const tls = u.protocol === "https:";
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port ? Number(u.port) : tls ? 443 : 80;
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  return { tls, host, port, path };
}

/** Starts the proxy in a fresh directory under `parent`; the socket is world-connectable so the container's user can reach it. */
export async function startModelBridge(parent: string, url: string): Promise<ModelBridge> {
  const target = parseModelUrl(url);
  const dir = mkdtempSync(join(parent, "model-"));
  chmodSync(dir, 0o755);
  const sock = join(dir, "model.sock");
  const open = new Set<Socket>();
  const server: Server = createServer((inner) => {
    const outer = target.tls
      ? tlsConnect({ host: target.host, port: target.port, servername: target.host })
      : netConnect({ host: target.host, port: target.port });
    for (const s of [inner, outer]) {
      open.add(s);
      s.on("close", () => open.delete(s));
      // A reset on one side ends the other; the agent sees a closed connection, as it would directly.
      s.on("error", () => {
        inner.destroy();
        outer.destroy();
      });
    }
    inner.pipe(outer);
    outer.pipe(inner);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(sock, () => resolve());
  });
  chmodSync(sock, 0o666);
  return {
    dir,
    innerUrl: `http://127.0.0.1:${BRIDGE_PORT}${target.path}`,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The agent container's first process: relay loopback:BRIDGE_PORT to the mounted socket. */
export function forwarderCommand(mount: string): string[] {
  return [
    "socat",
    `TCP-LISTEN:${BRIDGE_PORT},bind=127.0.0.1,reuseaddr,fork`,
    `UNIX-CONNECT:${mount}/model.sock`,
  ];
}

/**
 * Wraps the agent argv so it starts only once the forwarder listens: bash's /dev/tcp probe in a
 * bounded loop (socat binds within milliseconds of the container starting, normally before the
 * workspace copy has finished), then exec, so the agent's exit code and signals are its own.
 */
export function waitForForwarder(argv: string[]): string[] {
  const probe = `for _ in $(seq 2000); do (: </dev/tcp/127.0.0.1/${BRIDGE_PORT}) 2>/dev/null && break; done; exec "$@"`;
  return ["bash", "-c", probe, "proctor-agent", ...argv];
}
