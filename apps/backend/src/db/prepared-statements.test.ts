import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { afterEach, describe, expect, it } from "vitest";
import { onPostgres, openTestDatabase } from "../testing/database.ts";
import { keepStatementsPrepared, PREPARED_STATEMENTS, placeholders } from "./database.ts";
import { alertChannel } from "./schema.ts";

const note = sqliteTable("note", { id: integer("id").primaryKey(), body: text("body").notNull() });

describe("statements kept prepared", () => {
  let sqlite: Sqlite.Database;
  afterEach(() => sqlite.close());

  function open() {
    sqlite = new Sqlite(":memory:");
    keepStatementsPrepared(sqlite);
    sqlite.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    return drizzle(sqlite);
  }

  it("prepares a text once, and hands it back in object mode after drizzle used it for arrays", () => {
    const db = open();
    db.insert(note).values({ id: 1, body: "hello" }).run();
    const text = 'select "id", "body" from "note"';
    expect(db.select().from(note).toSQL().sql).toBe(text);

    expect(sqlite.prepare(text)).toBe(sqlite.prepare(text));
    // drizzle's builder reads its rows as arrays (raw mode) from this very statement...
    expect(db.select().from(note).all()).toEqual([{ id: 1, body: "hello" }]);
    // ...and a plain query of the same text still reads objects.
    expect(db.all(sql.raw(text))).toEqual([{ id: 1, body: "hello" }]);
    expect(db.select().from(note).all()).toEqual([{ id: 1, body: "hello" }]);
  });

  it("keeps at most PREPARED_STATEMENTS texts, dropping the oldest", () => {
    open();
    const first = sqlite.prepare("select 0");
    for (let i = 1; i < PREPARED_STATEMENTS; i++) sqlite.prepare(`select ${i}`);
    expect(sqlite.prepare("select 0")).toBe(first);
    sqlite.prepare(`select ${PREPARED_STATEMENTS}`);
    expect(sqlite.prepare("select 0")).not.toBe(first);
    expect(sqlite.prepare("select 0").get()).toEqual({ 0: 0 });
  });

  it("statements that write run again with new values", () => {
    const db = open();
    for (const id of [1, 2, 3])
      db.insert(note)
        .values({ id, body: `n${id}` })
        .run();
    expect(
      db
        .select()
        .from(note)
        .all()
        .map((row) => row.body),
    ).toEqual(["n1", "n2", "n3"]);
  });
});

describe("prepared queries (Database.prepare), on either engine", () => {
  it("run again and again with new values, each encoded by its column, in and out of transactions", async () => {
    const directory = mkdtempSync(join(tmpdir(), "stackgate-prepared-"));
    const { db, close } = await openTestDatabase(directory);
    try {
      const insert = db.prepare("test_insert_channel", (q) =>
        q.insert(alertChannel).values({
          id: sql.placeholder("id"),
          name: sql.placeholder("name"),
          kind: "ntfy",
          enabled: sql.placeholder("enabled"),
          events: sql.placeholder("events"),
          stacks: [],
          language: "en",
          settings: sql.placeholder("settings"),
          createdAt: sql.placeholder("createdAt"),
          updatedAt: sql.placeholder("createdAt"),
        }),
      );
      const rename = db.prepare("test_rename_channel", (q) =>
        q
          .update(alertChannel)
          .set(placeholders(alertChannel, ["name"]))
          .where(eq(alertChannel.id, sql.placeholder("id")))
          .returning({ id: alertChannel.id }),
      );
      const byId = db.prepare("test_channel_by_id", (q) =>
        q
          .select()
          .from(alertChannel)
          .where(eq(alertChannel.id, sql.placeholder("id"))),
      );
      for (const [id, enabled] of [
        ["a", true],
        ["b", false],
      ] as const)
        await db.transaction((tx) =>
          insert.execute(
            {
              id,
              name: `channel ${id}`,
              enabled,
              settings: { topic: id },
              events: ["deploy.failed"],
              createdAt: new Date(1_000),
            },
            tx,
          ),
        );
      expect(await db.transaction((tx) => rename.execute({ id: "b", name: "renamed" }, tx))).toEqual([
        { id: "b" },
      ]);
      expect(await db.transaction((tx) => rename.execute({ id: "none", name: "x" }, tx))).toEqual([]);
      expect(await byId.execute({ id: "a" })).toEqual([
        expect.objectContaining({
          name: "channel a",
          enabled: true,
          events: ["deploy.failed"],
          settings: { topic: "a" },
          createdAt: new Date(1_000),
        }),
      ]);
      expect(await byId.execute({ id: "b" })).toEqual([
        expect.objectContaining({ name: "renamed", enabled: false }),
      ]);
      // On SQLite, where one connection serves everything, a write must take its turn.
      if (!onPostgres()) await expect(insert.execute({ id: "c" })).rejects.toThrow(/outside a transaction/);
    } finally {
      await close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
