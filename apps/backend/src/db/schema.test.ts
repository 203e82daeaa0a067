import { getTableConfig as postgresTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as postgres from "./schema.postgres.ts";
import * as sqlite from "./schema.ts";

/** What both engines must agree on: names, nullability, defaults, keys and indexes. */
function shape(config: ReturnType<typeof sqliteTable> | ReturnType<typeof postgresTable>) {
  return {
    name: config.name,
    columns: config.columns
      .map((column) => ({
        name: column.name,
        notNull: column.notNull,
        // SQLite's integer primary key is its rowid, which drizzle counts as a default.
        hasDefault: column.hasDefault && !column.primary,
        primary: column.primary,
        unique: column.isUnique,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((column) => column.name)),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference();
        return `${reference.columns.map((column) => column.name)}->${reference.foreignColumns.map((column) => column.name)}:${key.onDelete}`;
      })
      .sort(),
    indexes: config.indexes
      .map(
        (index) =>
          `${index.config.name}(${index.config.columns.map((column) => (column as { name: string }).name)})${index.config.where ? " partial" : ""}`,
      )
      .sort(),
  };
}

describe("the schema", () => {
  it("declares the same tables for both engines", () => {
    expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort());
  });

  const pairs = Object.entries(sqlite).map(
    ([name, table]) =>
      [name, table, Object.entries(postgres).find(([other]) => other === name)?.[1]] as const,
  );
  it.each(pairs)(
    "%s has the same columns, keys and indexes on PostgreSQL as on SQLite",
    (_, onSqlite, onPostgres) => {
      if (!onPostgres) throw new Error("missing on PostgreSQL");
      expect(shape(postgresTable(onPostgres))).toEqual(shape(sqliteTable(onSqlite)));
    },
  );
});
