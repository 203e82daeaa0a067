/**
 * Writes held in memory, one value per key (the latest wins), and written together every
 * `everyMs` milliseconds while any are pending. A write that fails keeps them for the next
 * round, so they land once the database takes writes again; `close` tries one last time.
 */
export function createWriteBehind<Value>({
  everyMs,
  write,
  onError = () => {},
}: {
  everyMs: number;
  /** Writes all the entries, or throws and writes none (one transaction). */
  write: (entries: [string, Value][]) => Promise<void>;
  onError?: (error: unknown, pending: number) => void;
}) {
  const pending = new Map<string, Value>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<boolean> | undefined;

  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };

  async function writePending() {
    const entries = [...pending];
    try {
      await write(entries);
    } catch (error) {
      onError(error, pending.size);
      return false;
    }
    // A value set again while it was being written is newer: it stays pending.
    for (const [key, value] of entries) if (pending.get(key) === value) pending.delete(key);
    if (pending.size === 0) stopTimer();
    return true;
  }

  /** Writes what is pending; false when the write failed (and everything stays pending). */
  function flush(): Promise<boolean> {
    if (pending.size === 0) return Promise.resolve(true);
    writing ??= writePending().finally(() => {
      writing = undefined;
    });
    return writing;
  }

  return {
    set(key: string, value: Value) {
      pending.set(key, value);
      timer ??= setInterval(() => void flush(), everyMs).unref();
    },
    get: (key: string) => pending.get(key),
    entries: () => [...pending],
    flush,
    async close() {
      stopTimer();
      await writing;
      await flush();
    },
  };
}

export type WriteBehind<Value> = ReturnType<typeof createWriteBehind<Value>>;
