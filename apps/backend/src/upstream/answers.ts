import { z } from "zod";
import { cleanUpstreamLabel, cleanUpstreamText, LOG_TEXT_LIMIT, startAndEnd } from "./text.ts";

/**
 * The shapes of Komodo's answers that Stackgate reads, checked where they arrive. Only the fields
 * used are kept (the rest is dropped), and every text in them is cleaned (see text.ts), with the
 * connection's key and secret redacted.
 */
export function answerSchemas(redact: (text: string) => string) {
  const clean = (value: string) => cleanUpstreamLabel(value, redact);
  // A stage's output keeps its start and its end, where compose prints its error.
  const cleanLog = (value: string) => cleanUpstreamText(value, redact, LOG_TEXT_LIMIT, startAndEnd);
  const text = z.string().transform((value) => cleanUpstreamText(value, redact));
  const label = z.string().transform(clean);
  const logText = z.string().transform(cleanLog);
  /** Komodo's timestamps (ms); anything else reads as unknown. */
  const time = z.number().int().nonnegative().nullish().catch(undefined);

  const stackListItem = z.object({
    id: label,
    name: label,
    info: z.object({
      state: label,
      status: label.nullish(),
      services: listOf(z.object({ service: label, image: label, update_available: z.boolean() })),
    }),
  });

  const update = z.object({
    _id: z.object({ $oid: label }).optional(),
    operation: label,
    status: label,
    success: z.boolean(),
    logs: listOf(
      z.object({
        stage: label,
        command: label.nullish().catch(undefined),
        stdout: logText,
        stderr: logText,
        success: z.boolean(),
        start_ts: time,
        end_ts: time,
      }),
    ),
  });

  const stack = z.object({
    name: label,
    config: z.object({ poll_for_updates: z.boolean().optional() }).optional(),
    // A repository stack's deployed commit (Komodo 1.x and 2.x alike); absent for the others.
    info: z
      .object({
        deployed_hash: label.nullish().catch(undefined),
        deployed_message: text.nullish().catch(undefined),
      })
      .optional()
      .catch(undefined),
  });

  /**
   * `ListStackServices`: each service with its container (docker's list item) and, on Komodo 2.x,
   * the running image's repo digests; 1.x has no digests, and its container's image id stands in.
   */
  const stackServices = listOf(
    z.object({
      service: label,
      image: label,
      container: z
        .object({
          id: label.nullish().catch(undefined),
          state: label,
          status: label.nullish().catch(undefined),
          created: z.number().nullish().catch(undefined),
          image_id: label.nullish().catch(undefined),
        })
        .nullish()
        .catch(undefined),
      image_digests: listOf(label).nullish().catch(undefined),
    }),
  );

  /** `InspectStackContainer`: the parts of docker's inspect that say whether a service stays up. */
  const container = z.object({
    RestartCount: z.number().int().nonnegative().nullish().catch(undefined),
    State: z
      .object({
        Status: label.nullish().catch(undefined),
        ExitCode: z.number().int().nullish().catch(undefined),
        Health: z
          .object({ Status: label.nullish().catch(undefined) })
          .nullish()
          .catch(undefined),
      })
      .nullish()
      .catch(undefined),
  });

  /** One message of `/ws/update`: an Update as it is stored or changed, without its logs. */
  const updateListItem = z.object({
    id: label,
    operation: label,
    start_ts: z.number(),
    success: z.boolean(),
    username: label,
    operator: label,
    target: z.object({ type: label, id: label }),
    status: label,
  });

  return {
    version: z.object({ version: label }),
    /**
     * `stackList`'s check and cleaning in one pass without zod's machinery, for the answer read on
     * every listing (its cost, and the garbage of its copies, were most of what the backend added to
     * Komodo's time: bench/RESULTS.md, issue 13). It accepts exactly what `stackList` accepts and gives
     * the same result; for anything else it gives undefined, and `stackList` says what is wrong.
     */
    readStackList: (value: unknown): KomodoStackListItem[] | undefined => readStackList(value, clean),
    /** `update`'s check in one pass, as `readStackList` is `stackList`'s: every deploy reads two or three. */
    readUpdate: (value: unknown): KomodoUpdate | undefined => readUpdate(value, clean, cleanLog),
    /** `stackServices`' check in one pass, as `readStackList` is `stackList`'s: read once or twice per deploy. */
    readStackServices: (value: unknown): KomodoStackService[] | undefined => readStackServices(value, clean),
    updateListItem,
    /** What `/ws/update` sends when the key's user is removed or disabled, before it closes. */
    invalidUser: z.object({ type: z.literal("INVALID_USER"), msg: text.optional().catch(undefined) }),
    stackList: listOf(stackListItem),
    update,
    updateList: z.object({
      updates: listOf(
        z.object({
          operation: label,
          start_ts: z.number(),
          target: z.object({ type: label, id: label }),
        }),
      ),
      next_page: z.number().int().nonnegative().nullish(),
    }),
    stack,
    stackServices,
    container,
    /** Komodo's `{error, trace}` failure body. */
    failure: z.object({ error: text, trace: listOf(text).optional().catch(undefined) }),
  };
}

export type AnswerSchemas = ReturnType<typeof answerSchemas>;
/** One stack of `ListStacks`, as `stackList` and `readStackList` give it. */
export interface KomodoStackListItem {
  id: string;
  name: string;
  info: {
    state: string;
    status?: string | null;
    services: { service: string; image: string; update_available: boolean }[];
  };
}
/** One stage of an Update's `logs`, as `update` and `readUpdate` give it. */
export interface KomodoStage {
  stage: string;
  command?: string | null | undefined;
  stdout: string;
  stderr: string;
  success: boolean;
  start_ts?: number | null | undefined;
  end_ts?: number | null | undefined;
}
/** An Update, as `update` and `readUpdate` give it. */
export interface KomodoUpdate {
  _id?: { $oid: string } | undefined;
  operation: string;
  status: string;
  success: boolean;
  logs: KomodoStage[];
}
export type KomodoUpdateList = z.output<AnswerSchemas["updateList"]>;
export type KomodoStack = z.output<AnswerSchemas["stack"]>;
/** One service of `ListStackServices`, as `stackServices` and `readStackServices` give it. */
export interface KomodoStackService {
  service: string;
  image: string;
  container?:
    | {
        id?: string | null | undefined;
        state: string;
        status?: string | null | undefined;
        created?: number | null | undefined;
        image_id?: string | null | undefined;
      }
    | null
    | undefined;
  image_digests?: string[] | null | undefined;
}
export type KomodoContainer = z.output<AnswerSchemas["container"]>;
export type KomodoUpdateListItem = z.output<AnswerSchemas["updateListItem"]>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function readStackList(value: unknown, clean: (text: string) => string): KomodoStackListItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: KomodoStackListItem[] = new Array(value.length);
  for (let index = 0; index < value.length; index++) {
    const item: unknown = value[index];
    if (!isObject(item) || typeof item.id !== "string" || typeof item.name !== "string") return undefined;
    const { info } = item;
    if (!isObject(info) || typeof info.state !== "string" || !Array.isArray(info.services)) return undefined;
    const { status } = info;
    if (status !== undefined && status !== null && typeof status !== "string") return undefined;
    const services: KomodoStackListItem["info"]["services"] = new Array(info.services.length);
    for (let at = 0; at < services.length; at++) {
      const service: unknown = info.services[at];
      if (
        !isObject(service) ||
        typeof service.service !== "string" ||
        typeof service.image !== "string" ||
        typeof service.update_available !== "boolean"
      )
        return undefined;
      services[at] = {
        service: clean(service.service),
        image: clean(service.image),
        update_available: service.update_available,
      };
    }
    items[index] = {
      id: clean(item.id),
      name: clean(item.name),
      info: {
        state: clean(info.state),
        status: typeof status === "string" ? clean(status) : status,
        services,
      },
    };
  }
  return items;
}

/** Komodo's timestamp as `time` reads it, when it is one of the shapes that needs no fallback. */
const isTime = (value: unknown): value is number | null | undefined =>
  value === undefined || value === null || (Number.isSafeInteger(value) && (value as number) >= 0);

const isOptionalText = (value: unknown): value is string | null | undefined =>
  value === undefined || value === null || typeof value === "string";

/** What an optional text becomes: cleaned when there is one, else as it was (null or absent). */
const optionalText = (value: string | null | undefined, clean: (text: string) => string) =>
  typeof value === "string" ? clean(value) : value;

function readUpdate(
  value: unknown,
  clean: (text: string) => string,
  cleanLog: (text: string) => string,
): KomodoUpdate | undefined {
  if (!isObject(value)) return undefined;
  const { _id: id, operation, status, success, logs } = value;
  if (typeof operation !== "string" || typeof status !== "string" || typeof success !== "boolean")
    return undefined;
  if (id !== undefined && !(isObject(id) && typeof id.$oid === "string")) return undefined;
  if (!Array.isArray(logs)) return undefined;
  const stages: KomodoUpdate["logs"] = new Array(logs.length);
  for (let index = 0; index < logs.length; index++) {
    const log: unknown = logs[index];
    if (
      !isObject(log) ||
      typeof log.stage !== "string" ||
      !isOptionalText(log.command) ||
      typeof log.stdout !== "string" ||
      typeof log.stderr !== "string" ||
      typeof log.success !== "boolean" ||
      !isTime(log.start_ts) ||
      !isTime(log.end_ts)
    )
      return undefined;
    const read: KomodoStage = {
      stage: clean(log.stage),
      stdout: cleanLog(log.stdout),
      stderr: cleanLog(log.stderr),
      success: log.success,
    };
    if ("command" in log) read.command = optionalText(log.command, clean);
    if ("start_ts" in log) read.start_ts = log.start_ts;
    if ("end_ts" in log) read.end_ts = log.end_ts;
    stages[index] = read;
  }
  const read: KomodoUpdate = { operation: clean(operation), status: clean(status), success, logs: stages };
  if ("_id" in value) read._id = id === undefined ? id : { $oid: clean((id as { $oid: string }).$oid) };
  return read;
}

function readStackServices(
  value: unknown,
  clean: (text: string) => string,
): KomodoStackService[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const services: KomodoStackService[] = new Array(value.length);
  for (let index = 0; index < value.length; index++) {
    const item: unknown = value[index];
    if (!isObject(item) || typeof item.service !== "string" || typeof item.image !== "string")
      return undefined;
    const read: KomodoStackService = { service: clean(item.service), image: clean(item.image) };
    const { container, image_digests: digests } = item;
    if (container !== undefined && container !== null) {
      if (
        !isObject(container) ||
        typeof container.state !== "string" ||
        !isOptionalText(container.id) ||
        !isOptionalText(container.status) ||
        !isOptionalText(container.image_id) ||
        !(
          container.created === undefined ||
          container.created === null ||
          typeof container.created === "number"
        )
      )
        return undefined;
      const running: NonNullable<KomodoStackService["container"]> = { state: clean(container.state) };
      if ("id" in container) running.id = optionalText(container.id, clean);
      if ("status" in container) running.status = optionalText(container.status, clean);
      if ("created" in container) running.created = container.created;
      if ("image_id" in container) running.image_id = optionalText(container.image_id, clean);
      read.container = running;
    } else if ("container" in item) read.container = container;
    if (digests !== undefined && digests !== null) {
      if (!Array.isArray(digests) || !digests.every((digest) => typeof digest === "string")) return undefined;
      read.image_digests = digests.map(clean);
    } else if ("image_digests" in item) read.image_digests = digests;
    services[index] = read;
  }
  return services;
}

/**
 * A list checked item by item that stops at the first wrong item: `z.array` would report every
 * wrong item, and a few megabytes of `[{"x":1},…]` would become millions of issues.
 */
function listOf<T extends z.ZodType>(item: T) {
  return z.unknown().transform((value, context): z.output<T>[] => {
    if (!Array.isArray(value)) {
      context.addIssue({ code: "custom", message: `expected a list, received ${kindOf(value)}` });
      return z.NEVER;
    }
    const items: z.output<T>[] = [];
    for (const [index, element] of value.entries()) {
      const parsed = item.safeParse(element);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          context.addIssue({ code: "custom", message: issue.message, path: [index, ...issue.path] });
        }
        return z.NEVER;
      }
      items.push(parsed.data);
    }
    return items;
  });
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : typeof value;
}

/** What was wrong, for a person: at most three issues, each with where it is. */
export function describeShapeError(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const where = issue.path
      .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
      .join("")
      .replace(/^\./, "");
    return `${where || "the answer"}: ${issue.message}`;
  });
  const more = error.issues.length - shown.length;
  return shown.join("; ") + (more > 0 ? ` (and ${more} more)` : "");
}
