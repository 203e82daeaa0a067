import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createORPCClient } from "@orpc/client";
import { UNREACHABLE_URL } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ApiClient } from "./api.ts";
import { createBackends } from "./backends.ts";

interface Received {
  method: string;
  url: string;
  cookie: string | undefined;
  body: string;
}

/** A backend stand-in that records what reached it and answers `status` with its name. */
async function startBackend(name: string, status = 200) {
  const received: Received[] = [];
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    received.push({
      method: request.method ?? "",
      url: request.url ?? "",
      cookie: request.headers.cookie,
      body,
    });
    response.writeHead(status, { "content-type": "application/json" });
    // oRPC's RPC answer for a procedure's output: `{ json }`.
    response.end(
      JSON.stringify(
        request.url?.startsWith("/rpc/")
          ? { json: { password: true, sso: null, from: name } }
          : { from: name },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let up: Awaited<ReturnType<typeof startBackend>>;
let failing: Awaited<ReturnType<typeof startBackend>>;
beforeAll(async () => {
  [up, failing] = await Promise.all([startBackend("up"), startBackend("failing", 500)]);
});
afterAll(() => Promise.all([up.close(), failing.close()]));

describe("the backends the dashboard's server asks", () => {
  test("a backend that does not take the connection is passed over, with the request whole", async () => {
    const backends = createBackends([UNREACHABLE_URL, up.url]);
    const before = up.received.length;
    const response = await backends.fetch("/api/auth/sign-in/email?x=1", {
      method: "POST",
      headers: { cookie: "session=1", "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.test" }),
    });
    expect(await response.json()).toEqual({ from: "up" });
    expect(up.received.slice(before)).toEqual([
      {
        method: "POST",
        url: "/api/auth/sign-in/email?x=1",
        cookie: "session=1",
        body: '{"email":"ada@example.test"}',
      },
    ]);
  });

  test("an HTTP error is an answer: it is not sent to another backend", async () => {
    const backends = createBackends([failing.url, up.url]);
    const before = up.received.length;
    const response = await backends.fetch("/api/v0/sign-in/options");
    expect(response.status).toBe(500);
    expect(up.received.length).toBe(before);
  });

  test("when no backend takes the connection, the error says why", async () => {
    const backends = createBackends([UNREACHABLE_URL, `${UNREACHABLE_URL}/`]);
    const failure = await backends.fetch("/api/auth/get-session").catch((error: unknown) => error);
    expect((failure as Error & { cause: { code: string } }).cause.code).toBe("ECONNREFUSED");
    expect(backends.names).toBe(`${UNREACHABLE_URL}, ${UNREACHABLE_URL}`);
  });

  test("the typed client goes the same way, with the person's cookie", async () => {
    const client: ApiClient = createORPCClient(
      createBackends([UNREACHABLE_URL, up.url]).rpcLink({ cookie: "session=2" }),
    );
    const before = up.received.length;
    expect(await client.signIn.options()).toMatchObject({ from: "up" });
    expect(up.received.slice(before)).toMatchObject([
      { method: "POST", url: "/rpc/signIn/options", cookie: "session=2" },
    ]);
  });
});
