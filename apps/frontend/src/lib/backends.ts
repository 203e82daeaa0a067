/**
 * Server side only: the backends the dashboard's server asks while it renders a page. With several
 * (`BACKEND_URLS`, as behind the gateway), a backend that does not take the connection (or does not
 * begin to answer a read) is passed over for the next, so pages keep rendering while one is stopped,
 * restarted or lost.
 */
import { RPCLink } from "@orpc/client/fetch";

/**
 * The failures where the request never reached a backend, so sending it to another one cannot
 * make anything happen twice (a reset or a timeout once connected could come after the work).
 */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The socket error (ECONNREFUSED, ENOTFOUND…) behind a failed fetch: Node's fetch hides it in `cause`. */
export function socketErrorCode(error: unknown): string | undefined {
  return error instanceof Error ? (error.cause as { code?: string } | undefined)?.code : undefined;
}

function neverConnected(error: unknown): boolean {
  const code = socketErrorCode(error);
  return code !== undefined && NOT_CONNECTED.has(code);
}

/** Reads: asking another backend again changes nothing, whatever the first did with the request. */
const READS = new Set(["GET", "HEAD"]);

/**
 * How long a backend has to begin its answer to a read before the next one is asked. A backend whose
 * host is gone (a killed container) refuses nothing: the connection attempt hangs until the caller's
 * own time limit, which would end the whole request on the first backend.
 */
export const READ_ANSWER_DEADLINE_MS = 1_000;

/** Where the oRPC link believes it sends; `fetchFromBackends` puts a real backend in its place. */
const LINK_ORIGIN = "http://backends.invalid";

export interface Backends {
  /** The backends' addresses, for log lines. */
  readonly names: string;
  /**
   * `path` (with its query) on the backend that last answered, else on the others in turn; the last
   * one's error when none does. HTTP errors are answers, and are not retried. Other requests go to the
   * next backend only when the connection failed; reads (GET, HEAD) also when it broke, or when no
   * answer began within `READ_ANSWER_DEADLINE_MS`.
   */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** An oRPC link to the backends' `/rpc`, sending `headers` (the person's cookie) along. */
  rpcLink(headers?: Record<string, string>): RPCLink<Record<never, never>>;
}

/** `urls`: one or more backends' base addresses, e.g. `http://backend-1:3000`. */
export function createBackends(urls: readonly string[]): Backends {
  if (urls.length === 0) throw new Error("createBackends needs at least one backend URL");
  const bases = urls.map((url) => url.replace(/\/+$/, ""));
  let current = 0;

  async function fetchFromBackends(path: string, init: RequestInit = {}): Promise<Response> {
    const read = READS.has((init.method ?? "GET").toUpperCase());
    let lastError: unknown;
    for (let tried = 0; tried < bases.length; tried++) {
      const index = (current + tried) % bases.length;
      // Only until the answer begins: its body may take as long as the caller allows.
      const deadline = new AbortController();
      const anotherLeft = tried < bases.length - 1;
      const timer =
        read && anotherLeft ? setTimeout(() => deadline.abort(), READ_ANSWER_DEADLINE_MS) : undefined;
      try {
        const response = await fetch(`${bases[index]}${path}`, {
          ...init,
          signal: init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal,
        });
        current = index;
        return response;
      } catch (error) {
        if (init.signal?.aborted) throw error;
        if (!read && !neverConnected(error)) throw error;
        lastError = error;
      } finally {
        clearTimeout(timer);
      }
    }
    throw lastError;
  }

  return {
    names: bases.join(", "),
    fetch: fetchFromBackends,
    rpcLink: (headers = {}) =>
      new RPCLink({
        url: `${LINK_ORIGIN}/rpc`,
        headers,
        // The link's request goes to whichever backend takes it; its body is read once, so it can
        // be sent again if the first backend does not take the connection.
        fetch: async (request, init) => {
          const { pathname, search } = new URL(request.url);
          return fetchFromBackends(`${pathname}${search}`, {
            method: request.method,
            headers: request.headers,
            body: request.body ? await request.arrayBuffer() : undefined,
            signal: request.signal,
            redirect: init.redirect,
          });
        },
      }),
  };
}

/**
 * Where the process that runs the whole service (gateway, backend and this server in one Node
 * process) puts the backend's own `fetch` (its Hono app's): pages are then rendered with the backend
 * in this process, without a request over the loopback.
 */
export const IN_PROCESS_BACKEND = Symbol.for("stackgate.backend.fetch");

export type InProcessFetch = (request: Request) => Response | Promise<Response>;

/** The backend's `fetch`, when this server runs in the same process as the backend. */
export const inProcessBackend = (): InProcessFetch | undefined =>
  (globalThis as { [IN_PROCESS_BACKEND]?: InProcessFetch })[IN_PROCESS_BACKEND];

/** Rejects once `signal` aborts, as `fetch` does; the backend's work itself goes on to its end. */
function abortable<T>(answer: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return answer;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    signal.addEventListener("abort", aborted, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener("abort", aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", aborted);
        reject(error);
      },
    );
  });
}

/** The backend in this process, asked through its own `fetch`: nothing to fail over to. */
export function createInProcessBackends(backendFetch: InProcessFetch): Backends {
  const ask = (request: Request) => abortable(Promise.resolve(backendFetch(request)), request.signal);
  return {
    names: "the backend in this process",
    fetch: (path, init = {}) => ask(new Request(`${LINK_ORIGIN}${path}`, init)),
    rpcLink: (headers = {}) =>
      new RPCLink({
        url: `${LINK_ORIGIN}/rpc`,
        headers,
        fetch: (request) => ask(request),
      }),
  };
}
