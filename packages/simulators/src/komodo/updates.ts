import type { Types } from "komodo_client";
import { KomodoError } from "./errors.ts";

/** Komodo's fixed page size for ListUpdates. */
export const UPDATES_PER_PAGE = 100;

export type NewUpdate = Omit<Types.Update, "_id">;

type UpdateListener = (item: Types.UpdateListItem) => void;

/**
 * Updates by id (O(1) for GetUpdate), plus the insertion-ordered list that ListUpdates scans.
 * Like Komodo's `add_update`/`update_update`, storing or changing an Update announces it to the
 * listeners (the update stream) as an `UpdateListItem`; `add(…, { announce: false })` is Komodo's
 * `add_update_without_send`, which execute calls use for the Update they return.
 */
export function createUpdateStore(newId: () => string, usernameOf: (operator: string) => string) {
  const byId = new Map<string, Types.Update>();
  const all: Types.Update[] = [];
  const listeners = new Set<UpdateListener>();

  function announce(update: Types.Update): void {
    if (listeners.size === 0) return;
    const item = toListItem(update, usernameOf(update.operator));
    for (const listener of listeners) listener(structuredClone(item));
  }

  return {
    add(fields: NewUpdate, { announce: send = true }: { announce?: boolean } = {}): Types.Update {
      const update: Types.Update = { _id: { $oid: newId() }, ...fields };
      byId.set(update._id!.$oid, update);
      all.push(update);
      if (send) announce(update);
      return update;
    },

    /** Tells the listeners that this Update changed (its status, its outcome). */
    announce,

    /** Listens to every stored or changed Update; returns the function that stops listening. */
    subscribe(listener: UpdateListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    get(id: string): Types.Update | undefined {
      return byId.get(id);
    },

    /** Newest first, 100 a page, `next_page` set when the page is full (as Komodo does). */
    list(query: unknown, page: number): Types.ListUpdatesResponse {
      const matches = compileUpdateQuery(query);
      // Reversed first so that the stable sort keeps later Updates first among equal start times.
      const newestFirst = all
        .filter(matches)
        .reverse()
        .sort((a, b) => b.start_ts - a.start_ts);
      const updates = newestFirst
        .slice(page * UPDATES_PER_PAGE, (page + 1) * UPDATES_PER_PAGE)
        .map((update) => toListItem(update, usernameOf(update.operator)));
      // Komodo sends `next_page: null` on the last page; the type only knows "absent".
      const next_page = updates.length === UPDATES_PER_PAGE ? page + 1 : (null as unknown as undefined);
      return { updates, next_page };
    },
  };
}

export type UpdateStore = ReturnType<typeof createUpdateStore>;

function toListItem(update: Types.Update, username: string): Types.UpdateListItem {
  return {
    id: update._id!.$oid,
    operation: update.operation,
    start_ts: update.start_ts,
    success: update.success,
    username,
    operator: update.operator,
    target: update.target,
    status: update.status,
  };
}

const FIELDS: Record<string, (update: Types.Update) => unknown> = {
  "target.type": (update) => update.target.type,
  "target.id": (update) => update.target.id,
  operation: (update) => update.operation,
  operator: (update) => update.operator,
  status: (update) => update.status,
  success: (update) => update.success,
  start_ts: (update) => update.start_ts,
};

const OPERATORS: Record<string, (value: unknown, argument: unknown) => boolean> = {
  $eq: (value, argument) => value === argument,
  $ne: (value, argument) => value !== argument,
  $in: (value, argument) => (argument as unknown[]).includes(value),
  $nin: (value, argument) => !(argument as unknown[]).includes(value),
  $gt: (value, argument) => compare(value, argument) > 0,
  $gte: (value, argument) => compare(value, argument) >= 0,
  $lt: (value, argument) => compare(value, argument) < 0,
  $lte: (value, argument) => compare(value, argument) <= 0,
};

/**
 * The subset of a MongoDB filter the simulator understands: equality and the comparison and
 * `$in`/`$nin` operators on the fields above. Anything else is refused loudly, so that a test never
 * passes because the simulator silently ignored part of a query.
 */
export function compileUpdateQuery(query: unknown): (update: Types.Update) => boolean {
  if (query === undefined || query === null) return () => true;
  if (!isPlainObject(query)) throw new KomodoError("ListUpdates query must be a document");
  const tests = Object.entries(query).map(([field, condition]) => {
    const read = FIELDS[field];
    if (!read)
      throw new KomodoError(`The Komodo simulator does not support the ListUpdates query field ${field}`);
    if (!isPlainObject(condition)) return (update: Types.Update) => read(update) === condition;
    const checks = Object.entries(condition).map(([operator, argument]) => {
      const check = OPERATORS[operator];
      if (!check)
        throw new KomodoError(`The Komodo simulator does not support the query operator ${operator}`);
      if ((operator === "$in" || operator === "$nin") && !Array.isArray(argument)) {
        throw new KomodoError(`${operator} needs an array`);
      }
      return (value: unknown) => check(value, argument);
    });
    return (update: Types.Update) => checks.every((check) => check(read(update)));
  });
  return (update) => tests.every((test) => test(update));
}

function compare(value: unknown, argument: unknown): number {
  if (typeof value !== "number" || typeof argument !== "number") return Number.NaN;
  return value - argument;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
