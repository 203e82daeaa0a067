import { randomUUID } from "node:crypto";
import type { Database } from "../db/database.ts";
import { upstreamConnection } from "../db/schema.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import { createKomodoClient, type KomodoClient } from "../upstream/komodo-client.ts";

/** No Komodo connection is saved yet: answered with 503. */
export class NoConnectionError extends Error {
  constructor() {
    super("No Komodo connection yet: add one under Settings");
  }
}

export interface ConnectionInput {
  name: string;
  url: string;
  key: string;
  secret: string;
}

/**
 * The one Komodo connection. Key and secret are sealed at rest; the client built from
 * them lives here and is rebuilt whenever the connection is saved or removed.
 */
export function createConnectionService({
  db,
  secretBox,
  upstreamTimeoutMs,
}: {
  db: Database;
  secretBox: SecretBox;
  upstreamTimeoutMs: number;
}) {
  const load = () => db.select().from(upstreamConnection).get();
  let client: KomodoClient | null = null;

  // A replaced client is not closed: deploys may still be using it. Its idle connections time out.
  const reload = () => {
    const row = load();
    client = row
      ? createKomodoClient(
          { url: row.url, key: secretBox.open(row.sealedKey), secret: secretBox.open(row.sealedSecret) },
          { timeoutMs: upstreamTimeoutMs },
        )
      : null;
  };
  reload();

  const describe = (row: NonNullable<ReturnType<typeof load>>) => ({
    id: row.id,
    name: row.name,
    url: row.url,
  });

  return {
    get() {
      const row = load();
      return row ? describe(row) : null;
    },

    /** The client for the current connection, or null when none is saved. */
    client: () => client,

    /** The client for the current connection; throws NoConnectionError when none is saved. */
    requireClient(): KomodoClient {
      if (!client) throw new NoConnectionError();
      return client;
    },

    /** Saves (replacing any current connection), reloads the client, and asks Komodo for its version. */
    async save({ name, url, key, secret }: ConnectionInput) {
      const row = {
        id: randomUUID(),
        name,
        url: url.replace(/\/+$/, ""),
        sealedKey: secretBox.seal(key),
        sealedSecret: secretBox.seal(secret),
        createdAt: new Date(),
      };
      db.transaction((tx) => {
        tx.delete(upstreamConnection).run();
        tx.insert(upstreamConnection).values(row).run();
      });
      reload();
      try {
        const version = await client!.getVersion();
        return { connection: describe(row), reachable: true, version, error: null };
      } catch (error) {
        return {
          connection: describe(row),
          reachable: false,
          version: null,
          error: (error as Error).message,
        };
      }
    },

    /** Removes the connection with this name; false when the current one has another name. */
    remove(name: string) {
      const row = load();
      if (!row || row.name !== name) return false;
      db.delete(upstreamConnection).run();
      reload();
      return true;
    },

    /** Closes the current client's connections (the backend is stopping). */
    close: () => client?.close(),
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
