import type { AnswerSchemas, KomodoUpdateListItem } from "./answers.ts";
import { cleanUpstreamLabel, limitLength } from "./text.ts";

/** Whether the update stream is logged in, and why not when it is not. */
export interface UpdateStreamState {
  status: "connecting" | "connected" | "disconnected";
  /** Why it is not connected (the last failure), null when connected or on the first attempt. */
  reason: string | null;
}

export interface UpdateStreamOptions {
  /** Komodo's base URL (http or https; the stream uses ws or wss on the same address). */
  baseUrl: string;
  key: string;
  secret: string;
  answers: Pick<AnswerSchemas, "updateListItem" | "invalidUser">;
  redact: (text: string) => string;
  /** Time Komodo has to accept the login. */
  loginTimeoutMs: number;
  /** First and longest wait between reconnects. */
  backoff?: { firstMs: number; maxMs: number };
  onState?: (state: UpdateStreamState) => void;
}

type ItemListener = (item: KomodoUpdateListItem) => void;

/** Messages larger than this are not Updates: dropped unread. */
const MAX_MESSAGE_CHARS = 64 * 1024;
/** Completed Updates remembered for a follower that asks just after the message came. */
const REMEMBERED_COMPLETIONS = 2_000;

export const isCompleteItem = (item: KomodoUpdateListItem) => item.status === "Complete";

/**
 * One websocket to Komodo's `/ws/update` (upstream facts, section 3), kept open until `close()`:
 * it logs in with the key and secret, hands each `UpdateListItem` to whoever follows that Update
 * and to every listener, and reconnects with backoff. Each login starts a new `session`: messages
 * sent while no session was logged in are lost, so a follower that was waiting across a change of
 * session reads its Update once itself.
 */
export function createUpdateStream(options: UpdateStreamOptions) {
  const { firstMs, maxMs } = options.backoff ?? { firstMs: 250, maxMs: 30_000 };
  const url = `${options.baseUrl.replace(/^http/, "ws")}/ws/update`;
  const followers = new Map<string, Set<ItemListener>>();
  const listeners = new Set<ItemListener>();
  const sessionListeners = new Set<() => void>();
  const completions = new Map<string, KomodoUpdateListItem>();

  let state: UpdateStreamState = { status: "connecting", reason: null };
  let socket: WebSocket | undefined;
  let session: number | undefined;
  let sessions = 0;
  let closed = false;
  let wait = firstMs;
  let retry: NodeJS.Timeout | undefined;

  const stateListeners = new Set<(state: UpdateStreamState) => void>();
  function setState(next: UpdateStreamState): void {
    if (next.status === state.status && next.reason === state.reason) return;
    state = next;
    options.onState?.(state);
    for (const listener of [...stateListeners]) listener(state);
  }

  function setSession(next: number | undefined): void {
    session = next;
    for (const listener of [...sessionListeners]) listener();
  }

  function connect(): void {
    if (closed) return;
    let loginTimer: NodeJS.Timeout | undefined;
    let failure: string | undefined;
    let loggedInHere = false;
    let current: WebSocket;
    try {
      current = new WebSocket(url);
    } catch {
      lost("the Komodo URL cannot be used for a websocket");
      return;
    }
    socket = current;
    const fail = (reason: string) => {
      failure ??= reason;
      current.close();
    };
    current.addEventListener("open", () => {
      current.send(JSON.stringify({ type: "ApiKeys", params: { key: options.key, secret: options.secret } }));
      loginTimer = setTimeout(() => fail("Komodo did not answer the login"), options.loginTimeoutMs);
    });
    current.addEventListener("message", ({ data }) => {
      if (socket !== current || typeof data !== "string" || data.length > MAX_MESSAGE_CHARS) return;
      if (!loggedInHere) {
        clearTimeout(loginTimer);
        if (data === "LOGGED_IN") {
          loggedInHere = true;
          return loggedIn();
        }
        // Komodo explains a refused login in text ("failed to authenticate user using api keys | …").
        return fail(
          `Komodo refused the login: ${limitLength(cleanUpstreamLabel(data, options.redact), 300)}`,
        );
      }
      receive(data, fail);
    });
    current.addEventListener("close", () => {
      clearTimeout(loginTimer);
      if (socket !== current) return;
      socket = undefined;
      lost(
        failure ??
          (!loggedInHere
            ? "the websocket to /ws/update could not be opened (Komodo unreachable, or a proxy in front of it does not pass websocket upgrades)"
            : "the websocket to /ws/update closed"),
      );
    });
  }

  function loggedIn(): void {
    wait = firstMs;
    sessions += 1;
    setState({ status: "connected", reason: null });
    setSession(sessions);
  }

  function lost(reason: string): void {
    setState({ status: "disconnected", reason });
    if (session !== undefined) setSession(undefined);
    if (closed) return;
    retry = setTimeout(connect, wait);
    retry.unref();
    wait = Math.min(wait * 2, maxMs);
  }

  function receive(data: string, fail: (reason: string) => void): void {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return;
    }
    const invalidUser = options.answers.invalidUser.safeParse(value);
    if (invalidUser.success) {
      const why = invalidUser.data.msg ? `: ${limitLength(invalidUser.data.msg, 300)}` : "";
      fail(`Komodo ended the stream, the key's user is no longer valid${why}`);
      return;
    }
    const parsed = options.answers.updateListItem.safeParse(value);
    if (!parsed.success) return;
    const item = parsed.data;
    if (isCompleteItem(item)) remember(item);
    for (const follower of [...(followers.get(item.id) ?? [])]) follower(item);
    for (const listener of listeners) listener(item);
  }

  function remember(item: KomodoUpdateListItem): void {
    completions.set(item.id, item);
    if (completions.size > REMEMBERED_COMPLETIONS) completions.delete(completions.keys().next().value!);
  }

  /** Calls `listener` whenever a session starts or ends; returns the function that stops it. */
  function onSession(listener: () => void): () => void {
    sessionListeners.add(listener);
    return () => sessionListeners.delete(listener);
  }

  connect();

  return {
    state: () => state,

    /** The logged-in session's number, undefined while not logged in. */
    session: () => session,

    /** The Complete message of this Update, if it came (and is still remembered). */
    completion: (id: string) => completions.get(id),

    /** Calls `listener` with every message about this Update; returns the function that stops it. */
    follow(id: string, listener: ItemListener): () => void {
      let set = followers.get(id);
      if (!set) {
        set = new Set();
        followers.set(id, set);
      }
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && followers.get(id) === set) followers.delete(id);
      };
    },

    /** Calls `listener` with every message; returns the function that stops it. */
    subscribe(listener: ItemListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    onSession,

    /** Resolves once logged in (at once if it is); for tests and benchmarks. */
    loggedIn(): Promise<void> {
      if (session !== undefined) return Promise.resolve();
      return new Promise((resolve) => {
        const stop = onSession(() => {
          if (session === undefined) return;
          stop();
          resolve();
        });
      });
    },

    /** Resolves with the first state, the current one included, that `test` accepts; for tests. */
    whenState(test: (state: UpdateStreamState) => boolean): Promise<UpdateStreamState> {
      if (test(state)) return Promise.resolve(state);
      return new Promise((resolve) => {
        const listener = (next: UpdateStreamState) => {
          if (!test(next)) return;
          stateListeners.delete(listener);
          resolve(next);
        };
        stateListeners.add(listener);
      });
    },

    /** Closes the socket for good; followers fall back to polling. */
    close(): void {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      const current = socket;
      socket = undefined;
      current?.close();
      setState({ status: "disconnected", reason: "closed" });
      if (session !== undefined) setSession(undefined);
    },
  };
}

export type UpdateStream = ReturnType<typeof createUpdateStream>;
