import { contract, type Permission, type Role, rolePermits } from "@stackgate/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "../testing/harness.ts";
import { invitePerson } from "./people/testing.ts";

interface Endpoint {
  name: string;
  method: string;
  path: string;
  access: string | undefined;
  permission: Permission | undefined;
}

/** Every procedure of the contract with its route and declared access, so new endpoints are covered too. */
function endpointsOf(router: object, prefix = ""): Endpoint[] {
  return Object.entries(router).flatMap(([key, value]) => {
    const definition = (
      value as {
        "~orpc"?: {
          route: { method?: string; path?: string };
          meta: { access?: string; permission?: Permission };
        };
      }
    )["~orpc"];
    if (!definition) return endpointsOf(value as object, `${prefix}${key}.`);
    return [
      {
        name: prefix + key,
        method: definition.route.method ?? "POST",
        path: (definition.route.path ?? "").replace(/\{(\w+)\}/g, "web"),
        access: definition.meta.access,
        permission: definition.meta.permission,
      },
    ];
  });
}

const allEndpoints = endpointsOf(contract);
const endpoints = allEndpoints.filter((endpoint) => endpoint.access !== "public");
const publicEndpoints = allEndpoints.filter((endpoint) => endpoint.access === "public");
const LESSER_ROLES = ["deployer", "viewer"] as const;

let app: TestBackend;
let cookie: string;
let validKey: string;
/** A signed-in person and an API key of theirs, for each role below admin. */
const lesser = {} as Record<(typeof LESSER_ROLES)[number], { cookie: string; key: string }>;
beforeAll(async () => {
  app = await startTestBackend();
  cookie = await app.signIn();
  validKey = (await app.createApiKey(cookie, "matrix")).key;
  for (const role of LESSER_ROLES) {
    const person = await invitePerson(app, cookie, { email: `${role}@example.test`, role });
    lesser[role] = { cookie: person.cookie, key: (await app.createApiKey(person.cookie, `${role}-key`)).key };
  }
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

/** Status and the JSON error message, for the refusals that must name a role. */
async function refusalOf(endpoint: Endpoint, headers: Record<string, string>) {
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
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    return { status: response.status, message: ((await response.json()) as { message?: string }).message };
  }
  await response.body?.cancel();
  return { status: response.status, message: undefined };
}

describe("every endpoint declares its access, and what it needs of a role", () => {
  it.each(allEndpoints)("$name", ({ access, permission }) => {
    expect(["keyOrSession", "sessionOnly", "public"]).toContain(access);
    if (access !== "public") expect(["read", "deploy", "scan", "account", "admin"]).toContain(permission);
  });
});

describe.each(publicEndpoints)("$method $path (public)", (endpoint) => {
  it("answers without credentials, its empty request with a 400 naming a field", async () => {
    const { status, message } = await refusalOf(endpoint, {});
    if (endpoint.method === "GET") expect(status).toBe(200);
    else {
      expect(status).toBe(400);
      expect(message).toMatch(/^\w+: /);
    }
  });
});

describe.each(endpoints.flatMap((endpoint) => LESSER_ROLES.map((role) => ({ ...endpoint, role }))))(
  "$method $path ($permission) for a $role",
  (endpoint) => {
    const role: Role = endpoint.role;
    const permitted = rolePermits(role, endpoint.permission!);
    it(permitted ? "admits their session" : "refuses their session with 403 naming the role", async () => {
      const { status, message } = await refusalOf(endpoint, { cookie: lesser[endpoint.role].cookie });
      if (permitted) expect([401, 403, 500]).not.toContain(status);
      else {
        expect(status).toBe(403);
        expect(message).toMatch(new RegExp(`^Your role is ${role}, which may not .+: ask an admin$`));
      }
    });
    if (endpoint.access === "keyOrSession") {
      it(permitted ? "admits their key" : "refuses their key with 403 naming the owner's role", async () => {
        const { status, message } = await refusalOf(endpoint, { "x-api-key": lesser[endpoint.role].key });
        if (permitted) expect([401, 403, 500]).not.toContain(status);
        else {
          expect(status).toBe(403);
          expect(message).toMatch(new RegExp(`owner's role, ${role}, which may not`));
        }
      });
    }
  },
);

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
