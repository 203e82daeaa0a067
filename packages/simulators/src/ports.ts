import { type AddressInfo, createServer } from "node:net";

/**
 * A port nothing listens on right now, for a server a test starts there (maybe later). Another
 * process may take it in between, so a test that needs a port to stay closed uses
 * {@link UNREACHABLE_URL} instead.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * An address that refuses every connection. Port 2 lies outside the kernel's ephemeral range, so
 * no server started on port 0 and no outgoing connection is ever given it (a closed port from
 * {@link freePort} once was taken by another test's server, and the "unreachable" provider
 * answered). Not port 1: fetch refuses that one itself, as a "bad port", without connecting.
 */
export const UNREACHABLE_PORT = 2;
export const UNREACHABLE_URL = `http://127.0.0.1:${UNREACHABLE_PORT}`;
