import { randomUUID } from "node:crypto";
import type { Actor, AuditService } from "../audit/service.ts";
import { type Cluster, singleBackend } from "../db/cluster.ts";
import type { Database } from "../db/database.ts";
import { upstreamConnection } from "../db/schema.ts";
import type { Logger } from "../platform/logger.ts";
import type { SecretBox } from "../platform/secret-box.ts";
import {
  createKomodoClient,
  type KomodoClient,
  type KomodoUpdateListItem,
  type UpdateStreamState,
  UpstreamError,
} from "../upstream/komodo-client.ts";

/** No Komodo connection is saved yet: answered with 503. */
export class NoConnectionError extends Error {
  constructor() {
    super("No Komodo connection yet: add one under Settings");
  }
}

/** Komodo answered 401/403 to the new key and secret: answered with 422, and nothing is saved. */
export class CredentialsRejectedError extends Error {
  constructor(reason: string) {
    super(`Komodo rejected the key and secret (${reason}); nothing was saved`);
  }
}

/** The URL carries a user name or password (`user:password@host`): answered with 400. */
export class CredentialsInUrlError extends Error {
  constructor() {
    super(
      "url must not contain a user name or password (user:password@); Komodo is reached with the key and secret",
    );
  }
}

const hasCredentials = (url: string) => {
  const parsed = URL.parse(url);
  return Boolean(parsed && (parsed.username || parsed.password));
};

/** A URL stored by an older version may carry `user:password@`: never shown or used. */
function withoutCredentials(url: string) {
  const parsed = URL.parse(url);
  if (!parsed || (!parsed.username && !parsed.password)) return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.href.replace(/\/+$/, "");
}

export interface ConnectionInput {
  name: string;
  url: string;
  key: string;
  secret: string;
}

type OutsideUpdateListener = (item: KomodoUpdateListItem, client: KomodoClient) => void;

/**
 * The one Komodo connection. Key and secret are sealed at rest; the client built from
 * them lives here and is rebuilt whenever the connection is saved or removed. The saved
 * connection's client follows Komodo's update stream for as long as it is the current one.
 */
export async function createConnectionService({
  db,
  secretBox,
  upstreamTimeoutMs,
  logger,
  audit,
  cluster = singleBackend,
}: {
  /** The other backends on the database: told of every change, and telling this one of theirs. */
  cluster?: Cluster;
  db: Database;
  secretBox: SecretBox;
  upstreamTimeoutMs: number;
  logger?: Logger;
  audit: AuditService;
}) {
  type Row = typeof upstreamConnection.$inferSelect;
  /** The saved connection, as last read or written: its client is the one in use. */
  let current: Row | undefined;
  let client: KomodoClient | null = null;
  const outsideListeners = new Set<OutsideUpdateListener>();
  const clientFor = (connection: { url: string; key: string; secret: string }) =>
    createKomodoClient(connection, { timeoutMs: upstreamTimeoutMs });

  function followingClientFor(connection: { url: string; key: string; secret: string }) {
    const following = createKomodoClient(connection, {
      timeoutMs: upstreamTimeoutMs,
      followUpdates: true,
      onStreamState: ({ status, reason }) => {
        if (status === "connected") logger?.info("Komodo update stream connected");
        else if (status === "disconnected" && reason !== "closed") {
          logger?.warn({ reason }, "Komodo update stream not connected; deploys poll Komodo meanwhile");
        }
      },
    });
    following.onOutsideUpdate((item) => {
      for (const listener of outsideListeners) listener(item, following);
    });
    return following;
  }

  // A replaced client is not closed, since deploys may still be using it (its idle connections time
  // out), but it stops following the update stream: those deploys poll to their end.
  const use = (next: KomodoClient | null) => {
    client?.stopFollowing();
    client = next;
  };

  const reload = async () => {
    const [row] = await db.select().from(upstreamConnection);
    current = row;
    use(
      row
        ? followingClientFor({
            url: withoutCredentials(row.url),
            key: secretBox.open(row.sealedKey),
            secret: secretBox.open(row.sealedSecret),
          })
        : null,
    );
  };
  await reload();
  const CHANGED = "connection-changed";
  cluster.subscribe(CHANGED, () => {
    reload().catch((error: unknown) =>
      logger?.warn({ err: error }, "the Komodo connection another backend saved could not be read"),
    );
  });

  const describe = (row: Row) => ({
    id: row.id,
    name: row.name,
    url: withoutCredentials(row.url),
  });

  return {
    async get() {
      const [row] = await db.select().from(upstreamConnection);
      return row ? describe(row) : null;
    },

    /** The client for the current connection, or null when none is saved. */
    client: () => client,

    /** The client for the current connection; throws NoConnectionError when none is saved. */
    requireClient(): KomodoClient {
      if (!client) throw new NoConnectionError();
      return client;
    },

    /**
     * Asks Komodo for its version with the new key and secret first. When Komodo refuses them
     * (401/403) nothing is saved: CredentialsRejectedError. When it cannot be reached (down, not
     * started yet, a timeout, an answer we cannot read) the connection is saved anyway and the
     * answer says why: Komodo may well come up after Stackgate, and every later call reports it.
     */
    async save({ name, url, key, secret }: ConnectionInput, by: Actor) {
      if (hasCredentials(url)) throw new CredentialsInUrlError();
      const baseUrl = url.replace(/\/+$/, "");
      const candidate = clientFor({ url: baseUrl, key, secret });
      let version: string | null = null;
      let error: string | null = null;
      try {
        version = await candidate.getVersion();
      } catch (failure) {
        if (failure instanceof UpstreamError && (failure.status === 401 || failure.status === 403)) {
          candidate.close();
          throw new CredentialsRejectedError(failure.message);
        }
        error = (failure as Error).message;
      }
      const row = {
        id: randomUUID(),
        name,
        url: baseUrl,
        sealedKey: secretBox.seal(key),
        sealedSecret: secretBox.seal(secret),
        createdAt: new Date(),
      };
      await db.transaction(async (tx) => {
        await tx.delete(upstreamConnection);
        await tx.insert(upstreamConnection).values(row);
        await audit.recordChange(
          { by, action: "connection.saved", target: name, detail: { url: withoutCredentials(baseUrl) } },
          tx,
        );
      });
      candidate.close();
      current = row;
      use(followingClientFor({ url: baseUrl, key, secret }));
      cluster.publish(CHANGED, null);
      return { connection: describe(row), reachable: error === null, version, error };
    },

    /** Removes the connection with this name; false when the current one has another name. */
    async remove(name: string, by: Actor) {
      const row = current;
      if (!row || row.name !== name) return false;
      await db.transaction(async (tx) => {
        await tx.delete(upstreamConnection);
        await audit.recordChange(
          { by, action: "connection.removed", target: name, detail: { url: withoutCredentials(row.url) } },
          tx,
        );
      });
      await reload();
      cluster.publish(CHANGED, null);
      return true;
    },

    /** Whether the current connection's update stream is logged in, and why not; null without one. */
    updateStream: (): UpdateStreamState | null => client?.updateStream() ?? null,

    /**
     * Calls `listener` with every update-stream message about an Update that Stackgate did not
     * start, from whichever connection is current; returns the function that stops it.
     */
    onOutsideUpdate(listener: OutsideUpdateListener): () => void {
      outsideListeners.add(listener);
      return () => outsideListeners.delete(listener);
    },

    /** Closes the current client's connections and update stream (the backend is stopping). */
    close: () => client?.close(),
  };
}

export type ConnectionService = Awaited<ReturnType<typeof createConnectionService>>;
