import Sqlite from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { afterEach, describe, expect, it } from "vitest";
import { keepStatementsPrepared, PREPARED_STATEMENTS } from "./database.ts";

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
