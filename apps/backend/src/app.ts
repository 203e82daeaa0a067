import { apiKeyProcedures } from "./apikeys/procedures.ts";
import { createApiKeyService } from "./apikeys/service.ts";
import { createAuth } from "./auth/better-auth.ts";
import { createAuthenticator } from "./auth/caller.ts";
import { createImplementer } from "./auth/procedures.ts";
import { seedAdmin } from "./auth/seed-admin.ts";
import { openDatabase } from "./db/database.ts";
import { createHttpApp } from "./http.ts";
import { generateOpenApiDocument } from "./openapi.ts";
import { type Clock, systemClock } from "./platform/clock.ts";
import { type Config, resolveAuthSecret } from "./platform/config.ts";
import type { Logger } from "./platform/logger.ts";
import { readVersion } from "./platform/version.ts";

/** Wires configuration, database, services and HTTP together; main.ts and the tests both start here. */
export async function createBackend({
  config,
  logger,
  clock = systemClock,
}: {
  config: Config;
  logger: Logger;
  clock?: Clock;
}) {
  const database = openDatabase(config.databasePath);
  const { db } = database;
  const auth = createAuth({ db, config, secret: resolveAuthSecret(config), logger });
  const seeded = await seedAdmin(auth, config);

  const apiKeys = createApiKeyService({ db, clock });
  const os = createImplementer(createAuthenticator({ auth, apiKeys }));
  const router = os.router({
    apikeys: apiKeyProcedures(os, { apiKeys }),
  });

  const app = createHttpApp({
    auth,
    router,
    appUrl: config.appUrl,
    logger,
    openApiDocument: await generateOpenApiDocument(readVersion()),
  });

  return {
    app,
    auth,
    seeded,
    async close() {
      database.close();
    },
  };
}

export type Backend = Awaited<ReturnType<typeof createBackend>>;
