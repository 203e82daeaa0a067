import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { OpenAPIGenerator } from "@orpc/openapi";
import { ZodToJsonSchemaConverter } from "@orpc/zod/zod4";
import { contract } from "@stackgate/contract";

export async function generateOpenApiDocument(version: string) {
  const generator = new OpenAPIGenerator({ schemaConverters: [new ZodToJsonSchemaConverter()] });
  return generator.generate(contract, {
    info: {
      title: "Stackgate API",
      version,
      description:
        "Lists the Komodo stacks, runs pull / redeploy / pull-redeploy, and records every action in one shared history. " +
        "Pipelines authenticate with an API key in the `x-api-key` header; people with the session cookie from sign-in.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "An API key created in Settings",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "better-auth.session_token",
          description: "The sign-in session",
        },
      },
    },
  });
}

/**
 * Runs before Scalar's bundle: its zod would probe whether eval is allowed (to compile parsers with
 * `new Function`), and the probe alone is a CSP violation. Zod keeps its settings on globalThis.
 */
const ZOD_WITHOUT_EVAL =
  "globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig ?? {}, { jitless: true });\n";

/** Scalar's browser bundle, served by us: the default CDN is unreachable offline and breaks the CSP. */
export function loadScalarBundle(): Buffer {
  return Buffer.concat([Buffer.from(ZOD_WITHOUT_EVAL), readScalarBundle()]);
}

function readScalarBundle(): Buffer {
  // The single-file build (scripts/bundle.ts) ships the bundle beside itself, without Scalar's package.
  const besideBuild = new URL("./scalar-standalone.js", import.meta.url);
  if (existsSync(besideBuild)) return readFileSync(besideBuild);
  // The package exports no path to its browser bundle, so find it beside the main entry.
  const mainEntry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return readFileSync(join(dirname(mainEntry), "browser", "standalone.js"));
}

/**
 * Stackgate's palette for Scalar (apps/frontend/src/styles/global.css): text and method colours that
 * pass WCAG AA (4.5:1) on every background Scalar uses, and 24 px targets for the sidebar's group
 * toggles (WCAG 2.2 target size). Kept free of quotes and ampersands: it travels in an HTML attribute.
 */
const referenceCss = `
.light-mode {
  --scalar-background-1: #ffffff; --scalar-background-2: #f4f5f7; --scalar-background-3: #eef0f3;
  --scalar-border-color: #dde1e7;
  --scalar-color-1: #121722; --scalar-color-2: #4d5666; --scalar-color-3: #4d5666;
  --scalar-color-accent: #1d4ed8; --scalar-color-blue: #1d4ed8; --scalar-color-green: #166534;
  --scalar-color-red: #b91c1c; --scalar-color-orange: #a3510a; --scalar-color-yellow: #a3510a;
  --scalar-color-purple: #86198f;
}
.dark-mode {
  --scalar-background-1: #141820; --scalar-background-2: #0c0f14; --scalar-background-3: #1b2029;
  --scalar-border-color: #272d38;
  --scalar-color-1: #e7eaf0; --scalar-color-2: #a1a9b8; --scalar-color-3: #a1a9b8;
  --scalar-color-accent: #7cb0ff; --scalar-color-blue: #7cb0ff; --scalar-color-green: #4ade80;
  --scalar-color-red: #ff8a8a; --scalar-color-orange: #fbbf24; --scalar-color-yellow: #fbbf24;
  --scalar-color-purple: #f0a8ff;
}
.request-body-required, .property-required { color: var(--scalar-color-orange); }
li[data-sidebar-id] > div > button { min-width: 24px; min-height: 24px; }
`;

/**
 * Scalar's configuration: nothing of the cloud. On a local address Scalar turns on its AI agent
 * ("Ask AI" would upload the API document to Scalar's servers), the MCP button and the developer
 * toolbar (Share, Deploy); the client button opens Scalar's web client. Fonts would come from its CDN.
 * The API client inside the page stays: it only calls this API.
 */
export const scalarConfiguration = {
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  telemetry: false,
  customCss: referenceCss,
} as const;

export const referencePage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Stackgate API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/doc" data-configuration='${JSON.stringify(scalarConfiguration)}'></script>
    <script src="/reference/scalar.js"></script>
  </body>
</html>`;
