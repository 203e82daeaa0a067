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
  write: (entries: [string, Value][]) => void;
  onError?: (error: unknown, pending: number) => void;
}) {
  const pending = new Map<string, Value>();
  let timer: NodeJS.Timeout | undefined;

  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };

  /** Writes what is pending; false when the write failed (and everything stays pending). */
  function flush() {
    if (pending.size === 0) return true;
    const entries = [...pending];
    try {
      write(entries);
    } catch (error) {
      onError(error, pending.size);
      return false;
    }
    for (const [key] of entries) pending.delete(key);
    if (pending.size === 0) stopTimer();
    return true;
  }

  return {
    set(key: string, value: Value) {
      pending.set(key, value);
      timer ??= setInterval(flush, everyMs).unref();
    },
    get: (key: string) => pending.get(key),
    entries: () => [...pending],
    flush,
    close() {
      stopTimer();
      flush();
    },
  };
}

export type WriteBehind<Value> = ReturnType<typeof createWriteBehind<Value>>;
