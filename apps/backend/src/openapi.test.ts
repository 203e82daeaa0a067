import { validate } from "@readme/openapi-parser";
import { contract } from "@stackgate/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestBackend, type TestBackend } from "./testing/harness.ts";

let app: TestBackend;
beforeAll(async () => {
  app = await startTestBackend();
});
afterAll(() => app.close());

function contractPaths(router: object): string[] {
  return Object.values(router).flatMap((value) => {
    const route = (value as { "~orpc"?: { route: { path?: string } } })["~orpc"]?.route;
    return route ? [route.path ?? ""] : contractPaths(value as object);
  });
}

it("serves a valid OpenAPI 3.1 document with the x-api-key scheme and every path", async () => {
  const response = await app.request("/doc");
  expect(response.status).toBe(200);
  const document = response.json;
  expect(document.openapi).toMatch(/^3\.1/);
  const result = await validate(structuredClone(document));
  expect(result.valid ? [] : result.errors).toEqual([]);
  expect(document.components.securitySchemes.apiKey).toMatchObject({
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  for (const path of contractPaths(contract)) expect(Object.keys(document.paths)).toContain(path);
});

it("serves the Scalar reference without any outside script", async () => {
  const page = await app.request("/reference");
  expect(page.status).toBe(200);
  expect(page.text).toContain('data-url="/doc"');
  const scripts = [...page.text.matchAll(/src="([^"]+)"/g)].map((match) => match[1]);
  expect(scripts).toEqual(["/reference/scalar.js"]);
  const bundle = await fetch(`${app.url}/reference/scalar.js`);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get("content-type")).toMatch(/javascript/);
  expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

it("configures Scalar without its cloud features, and its zod without eval", async () => {
  const page = await app.request("/reference");
  const configuration = JSON.parse(page.text.match(/data-configuration='([^']*)'/)?.[1] ?? "{}");
  expect(configuration).toMatchObject({
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    telemetry: false,
  });
  const bundle = await (await fetch(`${app.url}/reference/scalar.js`)).text();
  expect(bundle.split("\n")[0]).toContain("jitless: true");
});
