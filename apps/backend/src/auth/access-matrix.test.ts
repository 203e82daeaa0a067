import { contract } from "@stackgate/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "../testing/harness.ts";

interface Endpoint {
  name: string;
  method: string;
  path: string;
  access: string | undefined;
}

/** Every procedure of the contract with its route and declared access, so new endpoints are covered too. */
function endpointsOf(router: object, prefix = ""): Endpoint[] {
  return Object.entries(router).flatMap(([key, value]) => {
    const definition = (
      value as { "~orpc"?: { route: { method?: string; path?: string }; meta: { access?: string } } }
    )["~orpc"];
    if (!definition) return endpointsOf(value as object, `${prefix}${key}.`);
    return [
      {
        name: prefix + key,
        method: definition.route.method ?? "POST",
        path: (definition.route.path ?? "").replace(/\{(\w+)\}/g, "web"),
        access: definition.meta.access,
      },
    ];
  });
}

const endpoints = endpointsOf(contract);

let app: TestBackend;
let cookie: string;
let validKey: string;
beforeAll(async () => {
  app = await startTestBackend();
  cookie = await app.signIn();
  validKey = (await app.createApiKey(cookie, "matrix")).key;
});
afterAll(() => app.close());

/** Status and headers only: an event stream would never end, so the body is not read. */
async function statusOf(endpoint: Endpoint, headers: Record<string, string>) {
  const hasBody = endpoint.method !== "GET";
  const response = await fetch(app.url + endpoint.path, {
    method: endpoint.method,
    headers: {
      ...headers,
      ...(hasBody ? { "content-type": "application/json", origin: "http://localhost:8080" } : {}),
    },
    body: hasBody ? "{}" : undefined,
    signal: AbortSignal.timeout(5000),
  });
  await response.body?.cancel();
  return response.status;
}

describe("every endpoint declares its access", () => {
  it.each(endpoints)("$name", ({ access }) => {
    expect(["keyOrSession", "sessionOnly"]).toContain(access);
  });
});

describe.each(endpoints)("$method $path ($access)", (endpoint) => {
  it("401 without credentials", async () => {
    expect(await statusOf(endpoint, {})).toBe(401);
  });
  it("401 with an invalid key", async () => {
    expect(await statusOf(endpoint, { "x-api-key": "sg_not-a-real-key" })).toBe(401);
  });
  it("401 with an invalid key even beside a valid session cookie", async () => {
    expect(await statusOf(endpoint, { "x-api-key": "sg_not-a-real-key", cookie })).toBe(401);
  });
  it(endpoint.access === "sessionOnly" ? "403 with a valid key" : "admits a valid key", async () => {
    const status = await statusOf(endpoint, { "x-api-key": validKey });
    if (endpoint.access === "sessionOnly") expect(status).toBe(403);
    else expect([401, 403, 500]).not.toContain(status);
  });
  it("admits a session, and answers its empty request without a 500", async () => {
    expect([401, 403, 500]).not.toContain(await statusOf(endpoint, { cookie }));
  });
});
