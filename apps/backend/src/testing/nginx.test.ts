import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGateway } from "@stackgate/gateway";
import type { KomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "./event-stream.ts";
import { startConnectedBackend } from "./harness.ts";
import { type Nginx, requireNginx, startNginx } from "./nginx.ts";

let komodo: KomodoSimulator;
let key: string;
let gateway: Server;
let nginx: Nginx;
let close: () => Promise<void>;

describe.skipIf(!requireNginx())("the nginx test kit", () => {
  beforeAll(async () => {
    let app: { url: string };
    ({ komodo, app, key, close } = await startConnectedBackend({
      komodo: { stacks: [{ name: "held", state: "running", faults: { holdUpdates: true } }] },
    }));
    gateway = createGateway({ backendUrl: app.url, frontendUrl: "http://127.0.0.1:9", version: "test" });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    nginx = await startNginx({ upstream: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await nginx?.stop();
    gateway?.closeAllConnections();
    gateway?.close();
    await close?.();
  });

  it("streams events unbuffered, cuts an open stream on reload, and serves again right after", async () => {
    const stream = await openEventStream(`${nginx.url}/api/v0/deploy/events`, { "x-api-key": key });
    expect((await stream.next()).type).toBe("subscribed");
    const deployed = fetch(`${nginx.url}/api/v0/deploy`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", prefer: "respond-async" },
      body: JSON.stringify({ stack: "held", action: "pull" }),
    });
    expect((await deployed).status).toBe(202);
    // While Komodo holds the pull, its events are already through nginx: nothing waits in a buffer.
    expect((await stream.next()).type).toBe("started");
    expect((await stream.next()).run.step).toBe("pull");

    await nginx.reload();
    // Cut: the chunked body just stops, which fetch reports as "terminated".
    await expect(stream.next(5000)).rejects.toThrow(/ended|terminated/);

    const again = await openEventStream(`${nginx.url}/api/v0/deploy/events`, { "x-api-key": key });
    const subscribed = await again.next();
    expect(subscribed.running.map((run: { stack: string }) => run.stack)).toEqual(["held"]);
    await komodo.whenHeld("held");
    komodo.releaseUpdates("held");
    let next = await again.next();
    // The pull's stages come first, then its end.
    while (next.type === "log") next = await again.next();
    expect(next.type).toBe("finished");
    again.close();
    expect(nginx.logs().access).toMatch(/GET \/api\/v0\/deploy\/events HTTP\/1.1" 200/);
  }, 30_000);
});
