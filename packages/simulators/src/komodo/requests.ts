import type { Types } from "komodo_client";
import { type ExecutionContext, log, recordCompleted, startExecution } from "./actions.ts";
import { inspectContainer, stackServices } from "./containers.ts";
import { KomodoError, missingPermission, RESOURCE_BUSY } from "./errors.ts";
import {
  type ExecuteType,
  reportedState,
  type SimStack,
  type StackRegistry,
  toListItem,
  toStack,
} from "./stacks.ts";
import { isPlainObject, type UpdateStore } from "./updates.ts";

export const KOMODO_VERSION = "2.3.2";

export type Api = "read" | "write" | "execute";

/**
 * How `ListStacks` pages:
 * - `paged`: Komodo 2.3 (default page size without `limit`, `limit: 0` = everything);
 * - `unpaged`: Komodo 2.2 and older, which ignore `page` and `limit` and return everything;
 * - `capped`: a server that never returns more than its default page size, even for `limit: 0`.
 */
export type StackPaging = "paged" | "unpaged" | "capped";

export interface RequestContext {
  stacks: StackRegistry;
  updates: UpdateStore;
  execution: ExecutionContext;
  stackPaging: StackPaging;
  defaultPageLimit: number;
}

type ParamsOf<R extends { type: string }, T extends R["type"]> =
  Extract<R, { type: T }> extends { params: infer P } ? P : never;

/** Handlers for a subset of one API's request union, each typed with komodo_client's params. */
type Handlers<R extends { type: string }> = Partial<{
  [T in R["type"]]: (params: ParamsOf<R, T>) => unknown;
}>;

export function createHandlers(context: RequestContext) {
  const { stacks, updates, execution } = context;

  const read = {
    GetVersion: (): Types.GetVersionResponse => ({ version: KOMODO_VERSION }),

    ListStacks: (params: Types.ListStacks): Types.ListStacksResponse => {
      const matches = stackQueryFilter(params.query);
      const listed = stacks.list().filter((stack) => !stack.faults.unreadable && matches(stack));
      if (params.sort_desc) listed.reverse();
      return pageOf(listed, params, context).map(toListItem);
    },

    GetStack: (params: Types.GetStack): Types.GetStackResponse => toStack(stacks.get(text(params, "stack"))),

    ListStackServices: (params: Types.ListStackServices): Types.ListStackServicesResponse =>
      stackServices(stacks.get(text(params, "stack")), execution.clock()),

    InspectStackContainer: (params: Types.InspectStackContainer): Types.InspectStackContainerResponse => {
      const stack = stacks.get(text(params, "stack"));
      const name = text(params, "service");
      const service = stack.services.find((candidate) => candidate.service === name);
      if (!service) throw new KomodoError(`Stack ${stack.name} has no service ${name}`);
      const container = inspectContainer(stack, service, execution.clock());
      if (!container) throw new KomodoError(`No container for service ${name}: the stack is not deployed`);
      return container;
    },

    GetUpdate: (params: Types.GetUpdate): Types.GetUpdateResponse => {
      const update = updates.get(text(params, "id"));
      if (!update) throw new KomodoError("no update exists with given id");
      if (stacks.find(update.target.id)?.faults.unreadable) throw new KomodoError(missingPermission("Read"));
      return update;
    },

    ListUpdates: (params: Types.ListUpdates): Types.ListUpdatesResponse =>
      updates.list(params.query, pageNumber(params.page)),
  } satisfies Handlers<Types.ReadRequest>;

  const write = {
    UpdateStack: (params: Types.UpdateStack): Types.Stack => {
      const stack = writableStack(text(params, "id"));
      if (!isPlainObject(params.config)) throw new KomodoError("missing field `config`");
      Object.assign(stack.config, params.config);
      const now = execution.clock();
      stack.updatedAt = now;
      const changed = Object.keys(params.config).join(", ");
      recordCompleted(updates, stack, {
        operation: "UpdateStack",
        operator: execution.operator,
        at: now,
        logs: [log("Update Stack", "", `Updated config: ${changed}`, now)],
      });
      return toStack(stack);
    },

    DeleteStack: (params: Types.DeleteStack): Types.Stack => {
      const stack = writableStack(text(params, "id"));
      const deleted = toStack(stack);
      const now = execution.clock();
      const logs: Types.Log[] = [];
      // Komodo takes a deployed stack down (compose down --remove-orphans) before deleting it.
      if (stack.state !== "down" && stack.state !== "unknown") {
        const command = `docker compose -p ${stack.name} down --remove-orphans`;
        logs.push(log("Destroy Stack", command, ` Network ${stack.name}_default  Removed`, now));
        stack.state = "down";
      }
      logs.push(log("Delete Stack", "", `Deleted Stack ${stack.name}`, now));
      recordCompleted(updates, stack, {
        operation: "DeleteStack",
        operator: execution.operator,
        at: now,
        logs,
      });
      stacks.remove(stack);
      return deleted;
    },
  } satisfies Handlers<Types.WriteRequest>;

  const execute = {
    PullStack: (params: Types.PullStack): Types.Update => run("PullStack", params),
    DeployStack: (params: Types.DeployStack): Types.Update => run("DeployStack", params),
    DestroyStack: (params: Types.DestroyStack): Types.Update => run("DestroyStack", params),
  } satisfies Handlers<Types.ExecuteRequest>;

  function run(type: ExecuteType, params: { stack: string; services?: string[] }): Types.Update {
    const stack = stacks.get(text(params, "stack"));
    return startExecution(execution, stack, type, serviceNames(params.services));
  }

  /** Writes need Write permission and an idle stack; both refusals come back as HTTP 500. */
  function writableStack(idOrName: string): SimStack {
    const stack = stacks.get(idOrName);
    if (stack.faults.forbidden) throw new KomodoError(missingPermission("Write"));
    if (stack.faults.busy || stack.activeAction) throw new KomodoError(RESOURCE_BUSY);
    return stack;
  }

  return { read, write, execute };
}

export type RequestHandlers = ReturnType<typeof createHandlers>;

/** The handler for `type` on `api`, or a Komodo-style error for a request type it does not know. */
export function handlerFor(handlers: RequestHandlers, api: Api, type: string): (params: unknown) => unknown {
  const byType = handlers[api] as Record<string, (params: unknown) => unknown>;
  if (Object.hasOwn(byType, type)) return byType[type];
  const known = Object.keys(byType)
    .map((name) => `\`${name}\``)
    .join(", ");
  throw new KomodoError(`unknown variant \`${type}\`, expected one of ${known}`);
}

function pageOf<T>(items: T[], params: Types.ListStacks, context: RequestContext): T[] {
  if (context.stackPaging === "unpaged") return items;
  const page = pageNumber(params.page);
  const requested = params.limit ?? context.defaultPageLimit;
  if (!Number.isInteger(requested) || requested < 0) throw new KomodoError("invalid value for `limit`");
  const capped = requested === 0 || requested > context.defaultPageLimit;
  const limit = context.stackPaging === "capped" && capped ? context.defaultPageLimit : requested;
  if (limit === 0) return items;
  return items.slice(page * limit, (page + 1) * limit);
}

/** The `ListStacks` query fields the simulator honours: names, terms, states and update_available. */
function stackQueryFilter(query: Types.StackQuery | undefined): (stack: SimStack) => boolean {
  const names = query?.names ?? [];
  const terms = query?.terms ?? [];
  const states = query?.specific?.states ?? [];
  const updateAvailable = query?.specific?.update_available;
  return (stack) =>
    (names.length === 0 || names.includes(stack.name)) &&
    terms.every((term) => stack.name.includes(term)) &&
    (states.length === 0 || states.includes(reportedState(stack) as Types.StackState)) &&
    (updateAvailable === undefined ||
      stack.services.some((service) => service.updateAvailable) === updateAvailable);
}

function pageNumber(page: unknown): number {
  if (page === undefined) return 0;
  if (typeof page !== "number" || !Number.isInteger(page) || page < 0) {
    throw new KomodoError("invalid value for `page`: expected u64");
  }
  return page;
}

/** A required string field, refused like serde refuses it. */
function text(params: object, field: string): string {
  const value = (params as Record<string, unknown>)[field];
  if (value === undefined) throw new KomodoError(`missing field \`${field}\``);
  if (typeof value !== "string") throw new KomodoError(`invalid type for \`${field}\`: expected a string`);
  return value;
}

function serviceNames(services: unknown): string[] {
  if (services === undefined) return [];
  if (!Array.isArray(services) || !services.every((name) => typeof name === "string")) {
    throw new KomodoError("invalid type for `services`: expected a sequence of strings");
  }
  return services;
}
