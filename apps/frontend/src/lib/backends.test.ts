import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createORPCClient } from "@orpc/client";
import { UNREACHABLE_URL } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ApiClient } from "./api.ts";
import { createBackends, READ_ANSWER_DEADLINE_MS } from "./backends.ts";

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

/**
 * A backend that takes the connection and then keeps silent, as a killed container's address does
 * from the other side; with `bodyAfterMs`, it begins its answer at once and ends the body that late.
 */
async function startSilentBackend({ bodyAfterMs }: { bodyAfterMs?: number } = {}) {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    if (bodyAfterMs === undefined) return;
    response.writeHead(200, { "content-type": "application/json" });
    response.flushHeaders();
    setTimeout(() => response.end(JSON.stringify({ from: "slow" })), bodyAfterMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, received, close };
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

  test("a read that a backend does not begin to answer in time is asked of the next one", async () => {
    const silent = await startSilentBackend();
    try {
      const backends = createBackends([silent.url, up.url]);
      const started = performance.now();
      const response = await backends.fetch("/api/auth/get-session", {
        signal: AbortSignal.timeout(READ_ANSWER_DEADLINE_MS * 3),
      });
      expect(await response.json()).toEqual({ from: "up" });
      expect(performance.now() - started).toBeGreaterThanOrEqual(READ_ANSWER_DEADLINE_MS - 50);
      expect(silent.received).toEqual(["GET /api/auth/get-session"]);
      // The backend that answered is asked first from then on.
      expect(await (await backends.fetch("/api/auth/get-session")).json()).toEqual({ from: "up" });
      expect(silent.received).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  test("a request that is not a read is never sent to a second backend once one took it", async () => {
    const silent = await startSilentBackend();
    try {
      const before = up.received.length;
      const failure = await createBackends([silent.url, up.url])
        .fetch("/api/auth/sign-in/email", {
          method: "POST",
          body: "{}",
          signal: AbortSignal.timeout(READ_ANSWER_DEADLINE_MS * 2),
        })
        .catch((error: unknown) => error);
      expect((failure as Error).name).toBe("TimeoutError");
      expect(silent.received).toEqual(["POST /api/auth/sign-in/email"]);
      expect(up.received.length).toBe(before);
    } finally {
      await silent.close();
    }
  });

  test("an answer that has begun is read to its end, however long its body takes", async () => {
    const slow = await startSilentBackend({ bodyAfterMs: READ_ANSWER_DEADLINE_MS + 500 });
    try {
      const response = await createBackends([slow.url, up.url]).fetch("/api/v0/sign-in/options");
      expect(await response.json()).toEqual({ from: "slow" });
    } finally {
      await slow.close();
    }
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
