import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Backends, createBackends } from "./backends.ts";
import { lookUpSession } from "./session.ts";

/** A stand-in for Better Auth's get-session that answers whatever user the test puts in `answer`. */
let answer: unknown = null;
let server: Server;
let backend: Backends;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  backend = createBackends([`http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const session = (user: Record<string, unknown>) => ({ session: { id: "s" }, user });

describe("the signed-in person's role", () => {
  test.each(["admin", "deployer", "viewer"])("is %s when get-session says so", async (role) => {
    answer = session({ id: "u1", name: "Ada", email: "ada@example.com", role });
    const found = await lookUpSession(backend, "cookie=1");
    expect(found).toMatchObject({ status: "signed-in", user: { role } });
  });

  test("is admin from a backend that sends no role (before roles, its only person was the admin)", async () => {
    answer = session({ id: "u1", name: "Ada", email: "ada@example.com" });
    expect(await lookUpSession(backend, "cookie=1")).toMatchObject({ user: { role: "admin" } });
  });

  test("is viewer, the least, when the role is one the dashboard does not know", async () => {
    answer = session({ id: "u1", name: "Ada", email: "ada@example.com", role: "owner" });
    expect(await lookUpSession(backend, "cookie=1")).toMatchObject({ user: { role: "viewer" } });
  });
});
