import { setTimeout as sleep } from "node:timers/promises";
import type { Types } from "komodo_client";
import { networkFailureReason, UpstreamError } from "./errors.ts";
import { createTransport, type TransportResponse } from "./transport.ts";
import { failedUpdateReason, isComplete } from "./updates.ts";

export { UpstreamError, type UpstreamErrorKind } from "./errors.ts";
export { failedUpdateReason } from "./updates.ts";

export type KomodoStackListItem = Types.StackListItem;

export interface KomodoConnection {
  url: string;
  key: string;
  secret: string;
}

export interface KomodoClientOptions {
  /** Time limit of each HTTP call. Default 10 s. */
  timeoutMs?: number;
}

export type ExecuteType = "PullStack" | "DeployStack" | "DestroyStack";
export type ExecuteParams<T extends ExecuteType> = Extract<Types.ExecuteRequest, { type: T }>["params"];

export interface WaitOptions {
  /** Epoch milliseconds after which waiting stops with a `timeout` error. */
  deadline: number;
  signal?: AbortSignal;
}

type Api = "read" | "write" | "execute";

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 1_000;

export type KomodoClient = ReturnType<typeof createKomodoClient>;

/**
 * A small client for Komodo Core's HTTP API (`POST /read|/write|/execute/<Type>`). The key and secret
 * live only in this closure and in request headers; errors and their messages never carry them.
 */
export function createKomodoClient(
  connection: KomodoConnection,
  { timeoutMs = 10_000 }: KomodoClientOptions = {},
) {
  const base = baseUrl(connection.url);
  const transport = createTransport(base.startsWith("https:"));
  const where = `Komodo at ${base}`;
  const redact = redactor([connection.key, connection.secret]);

  async function call(api: Api, type: string, params: object, signal?: AbortSignal, budgetMs = timeoutMs) {
    const timeout = AbortSignal.timeout(budgetMs);
    let response: TransportResponse;
    try {
      response = await transport.post(
        `${base}/${api}/${type}`,
        {
          "content-type": "application/json",
          accept: "application/json",
          "x-api-key": connection.key,
          "x-api-secret": connection.secret,
        },
        JSON.stringify(params),
        signal ? AbortSignal.any([timeout, signal]) : timeout,
      );
    } catch (error) {
      if (timeout.aborted) {
        throw new UpstreamError("timeout", `${where} did not answer within ${budgetMs} ms`);
      }
      if (signal?.aborted) throw signal.reason;
      throw new UpstreamError("unreachable", `${where} is unreachable: ${networkFailureReason(error)}`);
    }
    return interpret(response);
  }

  function interpret({ status, location, text }: TransportResponse): unknown {
    if (status >= 300 && status < 400) {
      const message = redact(`${where} redirects to ${location ?? "another address"}; use that address`);
      throw new UpstreamError("rejected", message, { status });
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) {
      if (body === undefined) throw badResponse("a body that is not JSON");
      return body;
    }
    if (isKomodoError(body)) {
      const detail = Array.isArray(body.trace) ? redact(body.trace.join("\n")) : undefined;
      throw new UpstreamError("rejected", redact(body.error), { status, detail });
    }
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    const message = redact(`${where} answered HTTP ${status}: ${snippet}`);
    throw new UpstreamError("rejected", message, { status });
  }

  function badResponse(what: string): UpstreamError {
    return new UpstreamError("bad-response", `${where} answered with ${what}`);
  }

  async function readUpdate(api: Api, type: string, params: object, signal?: AbortSignal, budgetMs?: number) {
    const body = await call(api, type, params, signal, budgetMs);
    if (!isUpdate(body)) throw badResponse(`something that is not an Update to ${type}`);
    return body;
  }

  async function listStacksPage(params: Types.ListStacks): Promise<Types.StackListItem[]> {
    const body = await call("read", "ListStacks", params);
    if (!Array.isArray(body)) throw badResponse("something that is not a list to ListStacks");
    return body as Types.StackListItem[];
  }

  /**
   * Follows an Update until Komodo marks it complete: it looks again after 10 ms, then doubles the
   * wait up to 1 s, and gives up at `deadline` with a `timeout` error.
   */
  async function waitForUpdate(
    update: Types.Update,
    { deadline, signal }: WaitOptions,
  ): Promise<Types.Update> {
    if (isComplete(update)) return update;
    const id = update._id?.$oid;
    if (!id) throw badResponse(`an ${update.operation} Update without an id, which cannot be followed`);
    let wait = FIRST_POLL_MS;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        const message = `${update.operation} did not complete in Komodo before the deadline`;
        throw new UpstreamError("timeout", message, { detail: `Update ${id}` });
      }
      await pause(Math.min(wait, remaining), signal);
      const budgetMs = Math.max(1, Math.min(timeoutMs, deadline - Date.now()));
      const current = await readUpdate(
        "read",
        "GetUpdate",
        { id } satisfies Types.GetUpdate,
        signal,
        budgetMs,
      );
      if (isComplete(current)) return current;
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }

  function execute<T extends ExecuteType>(type: T, params: ExecuteParams<T>): Promise<Types.Update> {
    return readUpdate("execute", type, params);
  }

  return {
    /** Komodo's version, e.g. "2.3.2"; also the cheapest check that URL, key and secret work. */
    async getVersion(): Promise<string> {
      const body = (await call(
        "read",
        "GetVersion",
        {} satisfies Types.GetVersion,
      )) as Types.GetVersionResponse;
      if (typeof body?.version !== "string") throw badResponse("something that is not a version");
      return body.version;
    },

    /**
     * Every stack, in one request: Komodo 2.3 pages `ListStacks` (50 without `limit`) and returns
     * everything for `limit: 0`; older servers ignore paging and always return everything. A
     * confirming second page would cost every listing a round trip for a server that does not exist.
     */
    listAllStacks: () => listStacksPage({ limit: 0 }),

    /** The stacks with exactly these names, as `ListStacks` shows them, in one request. */
    findStacks: (names: string[]) => listStacksPage({ query: { names }, limit: 0 }),

    /** The stack with exactly this name as `ListStacks` shows it (state, services), if there is one. */
    async findStack(name: string): Promise<Types.StackListItem | undefined> {
      const items = await listStacksPage({ query: { names: [name] }, limit: 0 });
      return items.find((item) => item.name === name);
    },

    /** The full stack (config and info) by id or name. */
    getStack: (stack: string) =>
      call("read", "GetStack", { stack } satisfies Types.GetStack) as Promise<Types.GetStackResponse>,

    execute,

    getUpdate: (id: string) => readUpdate("read", "GetUpdate", { id } satisfies Types.GetUpdate),

    waitForUpdate,

    /** Executes and follows the Update; a completed failure throws `failed-update` with Komodo's reason. */
    async executeAndWait<T extends ExecuteType>(type: T, params: ExecuteParams<T>, options: WaitOptions) {
      const update = await waitForUpdate(await execute(type, params), options);
      if (update.success) return update;
      throw new UpstreamError("failed-update", redact(failedUpdateReason(update)), {
        detail: `Update ${update._id?.$oid ?? "without id"}`,
      });
    },

    /** One page (100, newest first) of Updates matching a MongoDB filter; `next_page` is null at the end. */
    listUpdates: (query?: Record<string, unknown>, page = 0) =>
      call("read", "ListUpdates", {
        query,
        page,
      } satisfies Types.ListUpdates) as Promise<Types.ListUpdatesResponse>,

    /** Changes only the config fields given (e.g. `poll_for_updates`); `id` may be the name. */
    updateStack: (id: string, config: Types._PartialStackConfig) =>
      call("write", "UpdateStack", { id, config } satisfies Types.UpdateStack) as Promise<Types.Stack>,

    /** Deletes the stack (Komodo takes it down first) and returns it; `id` may be the name. */
    deleteStack: (id: string) =>
      call("write", "DeleteStack", { id } satisfies Types.DeleteStack) as Promise<Types.Stack>,

    /** Closes the kept-alive connections to Komodo; calls made afterwards open new ones. */
    close: () => transport.close(),
  };
}

/** The configured URL without credentials, query or trailing slash; Komodo may sit under a path. */
function baseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UpstreamError("unreachable", "The Komodo URL is not a valid URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UpstreamError("unreachable", "The Komodo URL must start with http:// or https://");
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}

/**
 * Replaces the credentials in text that came from the server. Values under 8 characters are left
 * alone: they would mangle ordinary words, and Komodo's own keys and secrets are 44 characters.
 */
function redactor(secrets: string[]): (text: string) => string {
  const present = secrets.filter((value) => value.length >= 8);
  return (text) => present.reduce((result, value) => result.replaceAll(value, "[redacted]"), text);
}

async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isKomodoError(body: unknown): body is { error: string; trace?: unknown } {
  return typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string";
}

function isUpdate(body: unknown): body is Types.Update {
  const update = body as Partial<Types.Update> | null;
  return (
    typeof update === "object" &&
    update !== null &&
    typeof update.status === "string" &&
    Array.isArray(update.logs)
  );
}
