import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Logger } from "../platform/logger.ts";
import type { DatabaseLocation } from "./database.ts";

/** What one backend tells the others sharing its database. */
export type ClusterMessage = { topic: string; body: unknown };

/**
 * The backends that share one database, seen from one of them. With SQLite there is only ever
 * one backend: nothing to tell, every lock is free, and it leads. With PostgreSQL, several backends
 * coordinate through it: messages go by LISTEN/NOTIFY, locks and leadership are advisory locks held
 * on one connection of each backend (a backend that dies lets go of them with its connection).
 */
export interface Cluster {
  /** This backend, for as long as it runs (a restart is another one). */
  readonly id: string;
  /** Whether the backend with this id has stopped (null: a backend from before ids, long gone). */
  isGone(id: string | null): Promise<boolean>;
  /** Tells every other backend; this one does not hear its own messages. */
  publish(topic: string, body: unknown): void;
  /** Hears the other backends' messages on `topic`; returns the function that stops it. */
  subscribe(topic: string, listener: (body: unknown) => void): () => void;
  /** Runs `work` while no other backend runs work under the same key. */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Whether this backend does the work done once for the whole service (sweeps, Komodo's own runs). */
  leads(): boolean;
  /** Calls `listener` each time this backend starts to lead (at once, if it leads already). */
  onLead(listener: () => void): void;
  close(): Promise<void>;
}

/** The only backend on its database (SQLite, or a test of one part): every other id is gone. */
export const singleBackend: Cluster = aloneOnTheDatabase();

function aloneOnTheDatabase(): Cluster {
  const id = randomUUID();
  return {
    id,
    isGone: async (other) => other !== id,
    publish: () => {},
    subscribe: () => () => {},
    exclusive: (_key, work) => work(),
    leads: () => true,
    onLead: (listener) => listener(),
    close: async () => {},
  };
}

/**
 * On PostgreSQL, resolves once the first bid for leadership is decided, so a backend alone on its
 * database leads from its first request on.
 */
export async function openCluster(location: DatabaseLocation, logger: Logger): Promise<Cluster> {
  return "postgresUrl" in location ? postgresCluster(location.postgresUrl, logger) : aloneOnTheDatabase();
}

const CHANNEL = "stackgate";
// The first key of every advisory lock here: apart from the migration lock (database.ts).
const LOCKS = 7_326_002;
const LEADER = 7_326_003;
/** Each backend holds the lock of its own id for as long as it runs: free means gone. */
const RUNNERS = 7_326_004;
/** PostgreSQL's limit on a notification's payload is 8000 bytes. */
const MAX_PAYLOAD = 7900;
/** How often a waiting lock or a follower tries again, if no release was heard first. */
const RETRY_MS = 250;
const LEADERSHIP_RETRY_MS = 2000;
const RECONNECT_MS = 1000;
const RELEASED = "cluster.released";

/**
 * One query at a time on a connection: the locks and the notifications share it, and `pg` refuses
 * (from 9 on; 8 warns) a query sent while another is under way.
 */
function oneAtATime(connection: pg.Client) {
  let last: Promise<unknown> = Promise.resolve();
  return <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
    const result = last.then(() => connection.query<Row>(text, values));
    last = result.catch(() => {});
    return result;
  };
}

type Query = ReturnType<typeof oneAtATime>;

async function postgresCluster(url: string, logger: Logger): Promise<Cluster> {
  const self = randomUUID();
  const listeners = new Map<string, Set<(body: unknown) => void>>();
  const waiting = new Set<() => void>();
  /** The open connection's queries (compared by identity: a new connection has a new one). */
  let client: Query | undefined;
  let connecting: Promise<Query> | undefined;
  let ending: (() => Promise<void>) | undefined;
  let leading = false;
  const leadListeners = new Set<() => void>();
  let closed = false;
  let leadershipTimer: NodeJS.Timeout | undefined;

  const wakeWaiters = () => {
    for (const wake of waiting) wake();
  };

  function connect(): Promise<Query> {
    connecting ??= (async () => {
      const next = new pg.Client({ connectionString: url, application_name: "stackgate-cluster" });
      const query = oneAtATime(next);
      next.on("error", () => {});
      next.on("end", () => {
        if (client === query) {
          client = undefined;
          connecting = undefined;
          if (leading) logger.warn("this backend stopped leading: its database connection ended");
          leading = false;
          // Whatever was held on the old connection is gone: waiters try again on a new one.
          wakeWaiters();
          if (!closed) setTimeout(() => void connect().catch(() => {}), RECONNECT_MS).unref();
        }
      });
      next.on("notification", ({ payload }) => {
        if (!payload) return;
        try {
          const { from, topic, body } = JSON.parse(payload) as { from: string } & ClusterMessage;
          if (topic === RELEASED) return wakeWaiters();
          if (from === self) return;
          for (const listener of listeners.get(topic) ?? []) listener(body);
        } catch (error) {
          logger.warn({ err: error }, "a message from another backend could not be read");
        }
      });
      try {
        await next.connect();
        await query(`LISTEN ${CHANNEL}`);
        await query("SELECT pg_advisory_lock($1, hashtext($2))", [RUNNERS, self]);
      } catch (error) {
        connecting = undefined;
        void next.end().catch(() => {});
        if (!closed) setTimeout(() => void connect().catch(() => {}), RECONNECT_MS).unref();
        throw error;
      }
      client = query;
      ending = () => next.end();
      return query;
    })();
    return connecting;
  }

  /** Takes an advisory lock on this backend's own connection if it is free; reentrant, as PostgreSQL's are. */
  async function tryLock(space: number, key: string): Promise<boolean> {
    const query = await connect();
    const { rows } = await query<{ held: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS held", [
      space,
      key,
    ]);
    return rows[0]?.held === true;
  }

  function publish(topic: string, body: unknown) {
    const payload = JSON.stringify({ from: self, topic, body });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      logger.warn({ topic }, "a message for the other backends was too large and not sent");
      return;
    }
    connect()
      .then((query) => query("SELECT pg_notify($1, $2)", [CHANNEL, payload]))
      .catch((error: unknown) =>
        logger.warn({ err: error, topic }, "a message for the other backends was not sent"),
      );
  }

  async function seekLeadership() {
    if (closed) return;
    try {
      if (!leading && (await tryLock(LEADER, "leader"))) {
        leading = true;
        logger.info(
          "this backend leads: it runs the background sweep, the image scans and publishes Komodo's own runs",
        );
        for (const listener of leadListeners) listener();
      }
    } catch {
      // The database is away; try again later.
    }
    leadershipTimer = setTimeout(() => void seekLeadership(), LEADERSHIP_RETRY_MS);
    leadershipTimer.unref();
  }
  await seekLeadership();

  return {
    id: self,
    async isGone(id) {
      if (id === null) return true;
      if (id === self) return false;
      if (!(await tryLock(RUNNERS, id))) return false;
      await client?.("SELECT pg_advisory_unlock($1, hashtext($2))", [RUNNERS, id]);
      return true;
    },
    publish,
    subscribe(topic, listener) {
      const forTopic = listeners.get(topic) ?? new Set();
      listeners.set(topic, forTopic);
      forTopic.add(listener);
      return () => forTopic.delete(listener);
    },
    async exclusive(key, work) {
      for (;;) {
        if (await tryLock(LOCKS, key)) break;
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, RETRY_MS);
          waiting.add(wake);
        });
      }
      const holder = client;
      try {
        return await work();
      } finally {
        // On a connection that ended meanwhile the lock is already gone.
        if (holder && holder === client) {
          await holder("SELECT pg_advisory_unlock($1, hashtext($2))", [LOCKS, key]).catch(() => {});
          holder("SELECT pg_notify($1, $2)", [
            CHANNEL,
            JSON.stringify({ from: self, topic: RELEASED }),
          ]).catch(() => {});
        }
      }
    },
    leads: () => leading,
    onLead(listener) {
      leadListeners.add(listener);
      if (leading) listener();
    },
    async close() {
      closed = true;
      clearTimeout(leadershipTimer);
      wakeWaiters();
      client = undefined;
      await ending?.().catch(() => {});
    },
  };
}
