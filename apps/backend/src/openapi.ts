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

/** Scalar's browser bundle, served by us: the default CDN is unreachable offline and breaks the CSP. */
export function loadScalarBundle(): Buffer {
  // The single-file build (scripts/bundle.ts) ships the bundle beside itself, without Scalar's package.
  const besideBuild = new URL("./scalar-standalone.js", import.meta.url);
  if (existsSync(besideBuild)) return readFileSync(besideBuild);
  // The package exports no path to its browser bundle, so find it beside the main entry.
  const mainEntry = createRequire(import.meta.url).resolve("@scalar/api-reference");
  return readFileSync(join(dirname(mainEntry), "browser", "standalone.js"));
}

export const referencePage = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Stackgate API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/doc" data-configuration='{"withDefaultFonts":false}'></script>
    <script src="/reference/scalar.js"></script>
  </body>
</html>`;
