import { setTimeout as sleep } from "node:timers/promises";
import type { Types } from "komodo_client";
import type { z } from "zod";
import type { Deadline } from "../platform/deadline.ts";
import { networkFailureReason, parseBaseUrl } from "../platform/network.ts";
import {
  answerSchemas,
  describeShapeError,
  type KomodoUpdate,
  type KomodoUpdateListItem,
} from "./answers.ts";
import { UpstreamError } from "./errors.ts";
import { cleanUpstreamLabel, limitLength } from "./text.ts";
import {
  AnswerTooLargeError,
  createTransport,
  MAX_ANSWER_BYTES,
  type TransportResponse,
} from "./transport.ts";
import { createUpdateStream, isCompleteItem, type UpdateStreamState } from "./update-stream.ts";
import { failedUpdateReason, isComplete } from "./updates.ts";

export type {
  KomodoContainer,
  KomodoStack,
  KomodoStackListItem,
  KomodoStackService,
  KomodoUpdate,
  KomodoUpdateList,
  KomodoUpdateListItem,
} from "./answers.ts";
export { UpstreamError, type UpstreamErrorKind } from "./errors.ts";
export type { UpdateStreamState } from "./update-stream.ts";
export { failedUpdateReason } from "./updates.ts";

export interface KomodoConnection {
  url: string;
  key: string;
  secret: string;
}

export interface KomodoClientOptions {
  /** Time limit of each HTTP call, answer included. Default 10 s. */
  timeoutMs?: number;
  /** Size limit of each answer. Default 8 MiB. */
  maxAnswerBytes?: number;
  /**
   * Follow Komodo's update stream (`/ws/update`) until `stopFollowing()`: Updates then complete the
   * moment Komodo says so, and polling is only the fallback. Default off (a one-off client).
   */
  followUpdates?: boolean;
  /** Called whenever the update stream connects or loses its connection. */
  onStreamState?: (state: UpdateStreamState) => void;
  /** Waits between the stream's reconnects. Default 250 ms doubling to 30 s. */
  streamBackoff?: { firstMs: number; maxMs: number };
}

export type ExecuteType = "PullStack" | "DeployStack" | "DestroyStack";
export type ExecuteParams<T extends ExecuteType> = Extract<Types.ExecuteRequest, { type: T }>["params"];

export interface WaitOptions {
  /** When waiting stops with a `timeout` error. */
  deadline: Deadline;
  signal?: AbortSignal;
}

export interface ExecuteOptions extends WaitOptions {
  /** Told of the Update the execute started, and awaited, before waiting for it (to note its id). */
  onStarted?: (update: KomodoUpdate) => void | Promise<void>;
}

type Api = "read" | "write" | "execute";

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 1_000;
/**
 * While the stream is logged in, an Update is still read this often: a socket that stays open but
 * stops carrying messages must not hold a deploy until its deadline.
 */
const STREAM_SAFETY_READ_MS = 10_000;
/** Ids of Updates this client started, remembered to tell them apart from everyone else's. */
const REMEMBERED_OWN_UPDATES = 10_000;

export type KomodoClient = ReturnType<typeof createKomodoClient>;

/**
 * A small client for Komodo Core's HTTP API (`POST /read|/write|/execute/<Type>`). The key and secret
 * live only in this closure and in request headers; errors and their messages never carry them.
 *
 * Komodo's answers are untrusted input: each is limited in time and size, parsed safely, and checked
 * against the shape its request returns; whatever is wrong is an `UpstreamError` (a 502), never a
 * crash. Every text taken from an answer is cleaned of control characters and cut to a sane length.
 */
export function createKomodoClient(
  connection: KomodoConnection,
  {
    timeoutMs = 10_000,
    maxAnswerBytes = MAX_ANSWER_BYTES,
    followUpdates = false,
    onStreamState,
    streamBackoff,
  }: KomodoClientOptions = {},
) {
  const base = baseUrl(connection.url);
  const transport = createTransport(base.startsWith("https:"), { maxAnswerBytes });
  const where = `Komodo at ${base}`;
  const redact = redactor([connection.key, connection.secret]);
  const answers = answerSchemas(redact);
  const stream = followUpdates
    ? createUpdateStream({
        baseUrl: base,
        key: connection.key,
        secret: connection.secret,
        answers,
        redact,
        loginTimeoutMs: timeoutMs,
        backoff: streamBackoff,
        onState: onStreamState,
      })
    : undefined;
  const ownUpdates = createOwnUpdates(stream);

  /** Calls `type` and returns its answer in the shape `schema` describes. */
  async function call<S extends z.ZodType>(
    schema: S,
    api: Api,
    type: string,
    params: object,
    signal?: AbortSignal,
    budgetMs = timeoutMs,
  ): Promise<z.output<S>> {
    return checked(schema, type, await answerOf(api, type, params, signal, budgetMs));
  }

  /** Calls `type` and returns its answer's JSON, unchecked. */
  async function answerOf(
    api: Api,
    type: string,
    params: object,
    signal: AbortSignal | undefined,
    budgetMs: number,
  ): Promise<unknown> {
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
      if (error instanceof AnswerTooLargeError) {
        throw badResponse(`more than ${mebibytes(error.limitBytes)} to ${type}, the most Stackgate reads`);
      }
      throw new UpstreamError("unreachable", `${where} is unreachable: ${networkFailureReason(error)}`);
    }
    return interpret(response);
  }

  function checked<S extends z.ZodType>(schema: S, type: string, body: unknown): z.output<S> {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw badResponse(`an unexpected shape to ${type}: ${describeShapeError(parsed.error)}`);
    }
    return parsed.data;
  }

  function interpret({ status, location, text }: TransportResponse): unknown {
    if (status >= 300 && status < 400) {
      const target = cleanUpstreamLabel(location ?? "another address", redact);
      throw new UpstreamError("rejected", `${where} redirects to ${target}; use that address`, { status });
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) {
      if (body === undefined) throw badResponse("a body that is not JSON");
      return body;
    }
    const failure = answers.failure.safeParse(body);
    if (failure.success) {
      const { error, trace } = failure.data;
      throw new UpstreamError("rejected", error, { status, detail: trace?.join("\n") });
    }
    const snippet = limitLength(cleanUpstreamLabel(text, redact).replace(/\s+/g, " ").trim(), 200);
    throw new UpstreamError("rejected", `${where} answered HTTP ${status}: ${snippet}`, { status });
  }

  function badResponse(what: string): UpstreamError {
    return new UpstreamError("bad-response", `${where} answered with ${what}`);
  }

  // In these three, the schema checks only an answer that the one-pass reader refuses, to say what is wrong with it.
  const readUpdate = async (
    api: Api,
    type: string,
    params: object,
    signal?: AbortSignal,
    budgetMs = timeoutMs,
  ) => {
    const body = await answerOf(api, type, params, signal, budgetMs);
    return answers.readUpdate(body) ?? checked(answers.update, type, body);
  };

  const listStacksPage = async (params: Types.ListStacks) => {
    const body = await answerOf("read", "ListStacks", params, undefined, timeoutMs);
    return answers.readStackList(body) ?? checked(answers.stackList, "ListStacks", body);
  };

  const getUpdate = (id: string, signal?: AbortSignal, budgetMs?: number) =>
    readUpdate("read", "GetUpdate", { id } satisfies Types.GetUpdate, signal, budgetMs);

  /**
   * Follows an Update until Komodo marks it complete, and returns it. While the update stream is
   * logged in, it waits for the Update's `Complete` message, and reads the Update once more only
   * when it failed (for the reason in its logs) or when the stream may have missed messages
   * (`seenFrom` is the session that was logged in before the Update began; a later session may
   * have missed some). Otherwise it polls: it looks again after 10 ms, then doubles the wait up to
   * 1 s. It gives up at `deadline` with a `timeout` error.
   */
  async function waitForUpdate(
    update: KomodoUpdate,
    { deadline, signal }: WaitOptions,
    seenFrom?: number,
  ): Promise<KomodoUpdate> {
    if (isComplete(update)) return update;
    const id = update._id?.$oid;
    if (!id) throw badResponse(`an ${update.operation} Update without an id, which cannot be followed`);
    const budget = () => Math.max(1, Math.min(timeoutMs, deadline.remainingMs()));
    let covered = seenFrom;
    let wait = FIRST_POLL_MS;
    for (;;) {
      const remaining = deadline.remainingMs();
      if (remaining <= 0) {
        const message = `${update.operation} did not complete in Komodo before the deadline`;
        throw new UpstreamError("timeout", message, { detail: `Update ${id}` });
      }
      const session = stream?.session();
      if (stream && session !== undefined) {
        const done = stream.completion(id);
        if (done) return finalUpdate(done, signal, budget());
        if (covered !== session) {
          const current = await getUpdate(id, signal, budget());
          if (isComplete(current)) return current;
          covered = session;
          continue;
        }
        const outcome = await nextOnStream(id, Math.min(remaining, STREAM_SAFETY_READ_MS), signal);
        if (outcome === "silent") covered = undefined;
        else if (outcome !== "session") return finalUpdate(outcome, signal, budget());
        continue;
      }
      covered = undefined;
      await pauseUnlessLoggedIn(Math.min(wait, remaining), signal);
      if (stream?.session() !== undefined) continue;
      const current = await getUpdate(id, signal, budget());
      if (isComplete(current)) return current;
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }

  /**
   * The Complete message of this Update from the stream; "session" when the session ends first,
   * "silent" when nothing came within `ms`.
   */
  function nextOnStream(id: string, ms: number, signal?: AbortSignal) {
    return new Promise<KomodoUpdateListItem | "session" | "silent">((resolve, reject) => {
      const cleanUp = () => {
        stopFollowing();
        stopSession();
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
      };
      const done = (outcome: KomodoUpdateListItem | "session" | "silent") => {
        cleanUp();
        resolve(outcome);
      };
      const aborted = () => {
        cleanUp();
        reject(signal?.reason);
      };
      const stopFollowing = stream!.follow(id, (item) => {
        if (isCompleteItem(item)) done(item);
      });
      const stopSession = stream!.onSession(() => done("session"));
      const timer = setTimeout(() => done("silent"), ms);
      if (signal?.aborted) aborted();
      else signal?.addEventListener("abort", aborted, { once: true });
    });
  }

  /** Resolves after `ms`, or as soon as the update stream logs in. */
  async function pauseUnlessLoggedIn(ms: number, signal?: AbortSignal): Promise<void> {
    if (!stream) return pause(ms, signal);
    const loggedIn = new AbortController();
    const stop = stream.onSession(() => {
      if (stream.session() !== undefined) loggedIn.abort();
    });
    try {
      await pause(ms, signal ? AbortSignal.any([signal, loggedIn.signal]) : loggedIn.signal);
    } catch (error) {
      if (!loggedIn.signal.aborted || signal?.aborted) throw error;
    } finally {
      stop();
    }
  }

  /**
   * The completed Update a stream message announced. A success needs nothing more; a failure is
   * read once, for the reason in its logs.
   */
  async function finalUpdate(item: KomodoUpdateListItem, signal?: AbortSignal, budgetMs?: number) {
    if (!item.success) return getUpdate(item.id, signal, budgetMs);
    return {
      _id: { $oid: item.id },
      operation: item.operation,
      status: item.status,
      success: true,
      logs: [],
    };
  }

  async function execute<T extends ExecuteType>(type: T, params: ExecuteParams<T>): Promise<KomodoUpdate> {
    return ownUpdates.track(readUpdate("execute", type, params));
  }

  return {
    /** Komodo's version, e.g. "2.3.2"; also the cheapest check that URL, key and secret work. */
    async getVersion(): Promise<string> {
      return (await call(answers.version, "read", "GetVersion", {} satisfies Types.GetVersion)).version;
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
    async findStack(name: string) {
      const items = await listStacksPage({ query: { names: [name] }, limit: 0 });
      return items.find((item) => item.name === name);
    },

    /** The full stack (config and info) by id or name. */
    getStack: (stack: string) => call(answers.stack, "read", "GetStack", { stack } satisfies Types.GetStack),

    /** The stack's services with their containers and, on 2.x, the running images' digests. */
    async listStackServices(stack: string) {
      const params: Types.ListStackServices = { stack };
      const body = await answerOf("read", "ListStackServices", params, undefined, timeoutMs);
      return answers.readStackServices(body) ?? checked(answers.stackServices, "ListStackServices", body);
    },

    /** Docker's inspect of one service's container: restarts, exit code, health. */
    inspectStackContainer: (stack: string, service: string) =>
      call(answers.container, "read", "InspectStackContainer", {
        stack,
        service,
      } satisfies Types.InspectStackContainer),

    execute,

    getUpdate: (id: string) => getUpdate(id),

    waitForUpdate: (update: KomodoUpdate, options: WaitOptions) => waitForUpdate(update, options),

    /**
     * Executes and follows the Update, and returns it complete with its stage logs (the stream's
     * message of a success carries none: it is read once more). A completed failure throws
     * `failed-update` with Komodo's reason and the Update.
     */
    async executeAndWait<T extends ExecuteType>(type: T, params: ExecuteParams<T>, options: ExecuteOptions) {
      const seenFrom = stream?.session();
      const started = await execute(type, params);
      await options.onStarted?.(started);
      let update = await waitForUpdate(started, options, seenFrom);
      const id = update._id?.$oid;
      if (update.success && update.logs.length === 0 && id) update = await getUpdate(id, options.signal);
      if (update.success) return update;
      throw new UpstreamError("failed-update", failedUpdateReason(update), {
        detail: `Update ${id ?? "without id"}`,
        update,
      });
    },

    /** One page (100, newest first) of Updates matching a MongoDB filter; `next_page` is null at the end. */
    listUpdates: (query?: Record<string, unknown>, page = 0) =>
      call(answers.updateList, "read", "ListUpdates", { query, page } satisfies Types.ListUpdates),

    /** Changes only the config fields given (e.g. `poll_for_updates`); `id` may be the name. */
    updateStack: (id: string, config: Types._PartialStackConfig) =>
      call(answers.stack, "write", "UpdateStack", { id, config } satisfies Types.UpdateStack),

    /** Deletes the stack (Komodo takes it down first) and returns it; `id` may be the name. */
    deleteStack: (id: string) =>
      call(answers.stack, "write", "DeleteStack", { id } satisfies Types.DeleteStack),

    /** The update stream's state; null when this client does not follow it. */
    updateStream: (): UpdateStreamState | null => stream?.state() ?? null,

    /** Resolves once the update stream is logged in; for tests and benchmarks. */
    whenFollowing: () => stream?.loggedIn() ?? Promise.resolve(),

    /** Resolves with the first update-stream state that `test` accepts; for tests. */
    whenStreamState: (test: (state: UpdateStreamState) => boolean) =>
      stream?.whenState(test) ?? Promise.reject(new Error("this client does not follow the update stream")),

    /** Calls `listener` with every stream message about an Update this client did not start. */
    onOutsideUpdate: ownUpdates.onOutside,

    /** Closes the update stream for good; waits in progress fall back to polling. */
    stopFollowing: () => stream?.close(),

    /** Closes the kept-alive connections to Komodo and the update stream. */
    close() {
      stream?.close();
      transport.close();
    },
  };
}

/**
 * Tells the Updates this client started from everyone else's. A message can arrive before the
 * answer of the execute that started its Update, so a message of an unknown Update waits until
 * the executes running when it came have answered; messages keep their order.
 */
function createOwnUpdates(stream: ReturnType<typeof createUpdateStream> | undefined) {
  const own = new Set<string>();
  const executing = new Set<Promise<unknown>>();
  const outside = new Set<(item: KomodoUpdateListItem) => void>();
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;

  function classify(item: KomodoUpdateListItem): void {
    if (own.has(item.id)) {
      if (isCompleteItem(item)) own.delete(item.id);
      return;
    }
    for (const listener of outside) listener(item);
  }

  stream?.subscribe((item) => {
    if (outside.size === 0) return;
    if (queued === 0 && (executing.size === 0 || own.has(item.id))) return classify(item);
    const before = [...executing];
    queued += 1;
    queue = queue
      .then(() => Promise.allSettled(before))
      .then(() => {
        queued -= 1;
        classify(item);
      });
  });

  return {
    /** Remembers the id of the Update an execute returns, before anyone sees the answer. */
    track(call: Promise<KomodoUpdate>): Promise<KomodoUpdate> {
      if (!stream) return call;
      const remembered = call.then((update) => {
        const id = update._id?.$oid;
        if (id) {
          own.add(id);
          if (own.size > REMEMBERED_OWN_UPDATES) own.delete(own.values().next().value!);
        }
        return update;
      });
      executing.add(remembered);
      const forget = () => executing.delete(remembered);
      remembered.then(forget, forget);
      return remembered;
    },
    onOutside(listener: (item: KomodoUpdateListItem) => void): () => void {
      outside.add(listener);
      return () => outside.delete(listener);
    },
  };
}

/** The configured URL without credentials, query or trailing slash; Komodo may sit under a path. */
function baseUrl(url: string): string {
  const parsed = parseBaseUrl(url, "The Komodo URL");
  if (!parsed.ok) throw new UpstreamError("unreachable", parsed.error);
  return parsed.base;
}

/**
 * Replaces the credentials in text that came from the server. Values under 8 characters are left
 * alone: they would mangle ordinary words, and Komodo's own keys and secrets are 44 characters.
 */
function redactor(secrets: string[]): (text: string) => string {
  const present = secrets.filter((value) => value.length >= 8);
  const shortest = Math.min(...present.map((value) => value.length));
  // Most texts (names, images, states) are shorter than any secret and cannot hold one.
  return (text) =>
    text.length < shortest
      ? text
      : present.reduce((result, value) => result.replaceAll(value, "[redacted]"), text);
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

const mebibytes = (bytes: number) => `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
