/**
 * Copies an SQLite database into an empty PostgreSQL database, every table and row as they are.
 *
 *   DATABASE_URL=postgres://… npm run db:copy-to-postgres              (the SQLite file under DATA_DIR)
 *   DATABASE_URL=postgres://… npm run db:copy-to-postgres -- <file>    (another SQLite file)
 *
 * Stop the backend first, so that nothing is written to the SQLite file meanwhile. The target must
 * be empty: a database with any Stackgate row in it is refused and left as it was. Everything is
 * copied in one transaction, so a failure leaves the target empty again.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../platform/config.ts";
import { explainStartupFailure } from "../platform/startup.ts";
import { type Database, type OpenedDatabase, openDatabase } from "./database.ts";
import * as schema from "./schema.ts";

/** Parents before the rows that refer to them. */
const TABLES_IN_ORDER = [
  ["user", schema.user],
  ["session", schema.session],
  ["account", schema.account],
  ["verification", schema.verification],
  ["api_key", schema.apiKey],
  ["upstream_connection", schema.upstreamConnection],
  ["notify_settings", schema.notifySettings],
  ["deploy_history", schema.deployHistory],
  ["image_scan", schema.imageScan],
  ["invitation", schema.invitation],
  ["audit_log", schema.auditLog],
  ["deploy_idempotency", schema.deployIdempotency],
  ["alert_channel", schema.alertChannel],
  ["alert_delivery", schema.alertDelivery],
  ["alert_update_seen", schema.alertUpdateSeen],
] as const;

/** Far below PostgreSQL's 65,535 parameters a statement, for the widest table. */
const ROWS_PER_INSERT = 500;

export class CopyRefused extends Error {}

/** Copies every row of `from` into `to` (empty), in one transaction of `to`; returns the count per table. */
export async function copyDatabase(from: Database, to: Database) {
  for (const [name, table] of TABLES_IN_ORDER) {
    const rows = await to.$count(table);
    if (rows > 0) {
      throw new CopyRefused(
        `DATABASE_URL: the PostgreSQL database is not empty (its ${name} table has ${rows} rows): copy into a new, empty database`,
      );
    }
  }
  const copied: Record<string, number> = {};
  await to.transaction(async (tx) => {
    for (const [name, table] of TABLES_IN_ORDER) {
      const rows = await from.select().from(table);
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        // biome-ignore lint/suspicious/noExplicitAny: each table's own rows, read just above with its columns
        await tx.insert(table).values(rows.slice(start, start + ROWS_PER_INSERT) as any);
      }
      copied[name] = rows.length;
    }
  });
  return copied;
}

function exitWith(line: string, code = 1): never {
  console.error(line);
  process.exit(code);
}

if (import.meta.main) {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    exitWith(error instanceof ConfigError ? error.message : String(error), 78);
  }
  if (!("postgresUrl" in config.database)) {
    exitWith(
      "DATABASE_URL: set it to the empty PostgreSQL database to copy into (postgres://user:password@host/db)",
      78,
    );
  }
  const sqlitePath = process.argv[2] ?? config.databasePath;
  if (!existsSync(sqlitePath)) {
    exitWith(
      `There is no SQLite database at ${sqlitePath}: pass its path, or run this with the backend's DATA_DIR`,
    );
  }

  let source: OpenedDatabase | undefined;
  let target: OpenedDatabase | undefined;
  try {
    source = await openDatabase({ sqlitePath });
    target = await openDatabase(config.database);
    const copied = await copyDatabase(source.db, target.db);
    console.log(`Copied ${sqlitePath} into PostgreSQL:`);
    for (const [table, rows] of Object.entries(copied)) console.log(`  ${table.padEnd(20)} ${rows} rows`);
    console.log(
      [
        "",
        "The Komodo key and secret and the ntfy token stay sealed with the auth secret: start the",
        `backends with the same BETTER_AUTH_SECRET${config.authSecret ? "" : ` (this one is in ${join(config.dataDir, "auth-secret")})`}.`,
      ].join("\n"),
    );
  } catch (error) {
    if (error instanceof CopyRefused) exitWith(error.message);
    exitWith(explainStartupFailure(error, sqlitePath), error instanceof ConfigError ? 78 : 1);
  } finally {
    await source?.close();
    await target?.close();
  }
}
