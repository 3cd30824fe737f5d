// The Docker end of the model bridge. Agent containers run with `--network none`, so the only way
// out is a Unix socket in a directory bind-mounted into the container; a forwarder on the
// container's own loopback (socat, started as the container's first process) relays to it, and the
// model proxy listening on it (lib/isolation/model-proxy.ts) forwards HTTP to the variant's model
// endpoint and to nothing else, taking off whatever credential the agent sent and putting the real
// one on from the host's environment: the container only ever holds a placeholder key. An https
// endpoint gets TLS from here, so the agent speaks plain HTTP to 127.0.0.1 and never holds a route
// to anywhere else.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Credential } from "../../wire/credential.ts";
import { bridgedUrl, type Exchange, parseModelUrl, startModelProxy } from "../model-proxy.ts";
import { BRIDGE_PORT } from "./engine.ts";

export { bridgedUrl, parseModelUrl } from "../model-proxy.ts";

/** A running bridge for one agent phase. */
export interface ModelBridge {
  /** The directory to mount (holds model.sock). */
  dir: string;
  /** PROCTOR_MODEL_URL inside the container. */
  innerUrl: string;
  close(): Promise<void>;
}

/** What the bridge puts on each request, and who watches the traffic. */
export interface BridgeOptions {
  /** The real credential (read from the host env per request); absent, the agent's own headers pass unchanged. */
  credential?: Credential;
  /** Sees each exchange once it ended, credentials left out (the seam for a meter and a transcript). */
  onExchange?: (e: Exchange) => void;
}

/**
 * Starts the bridge in a fresh directory under `parent`: the model proxy on `model.sock` there, for
 * `url` only, with `o.credential` put on every request.
 */
export async function startModelBridge(
  parent: string,
  url: string,
  o: BridgeOptions = {},
): Promise<ModelBridge> {
  parseModelUrl(url);
  const dir = mkdtempSync(join(parent, "model-"));
  chmodSync(dir, 0o755);
  try {
    const proxy = await startModelProxy(
      { socket: join(dir, "model.sock") },
      {
        route: { url, ...(o.credential ? { credential: o.credential } : {}) },
        ...(o.onExchange ? { onExchange: o.onExchange } : {}),
      },
    );
    return {
      dir,
      innerUrl: bridgedUrl(`http://127.0.0.1:${BRIDGE_PORT}`, url),
      close: async () => {
        await proxy.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
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
