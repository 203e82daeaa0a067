import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Types } from "komodo_client";
import {
  AUTO_REDEPLOY_OPERATOR,
  type ExecutionContext,
  recordDeploy,
  startExternalDeploy,
} from "./actions.ts";
import { mergeFaults, type ServerFaults, type StackFaults } from "./faults.ts";
import { createRequestListener, type RecordedCall } from "./http.ts";
import { objectIdSource } from "./ids.ts";
import { createHandlers, type StackPaging } from "./requests.ts";
import { generateStacks, type StackSeed } from "./seeds.ts";
import { composeFile, createStackRegistry, type SimStack, toListItem } from "./stacks.ts";
import { createUpdateStream, type UpdateStreamControl } from "./update-stream.ts";
import { createUpdateStore } from "./updates.ts";

/** Fixed credentials shaped like Komodo v2 API keys, so every run can reuse the same ones. */
export const DEFAULT_KEY = "K_WQ9jd4ohKUHF4gWoas2DexDiOhZUdbgc7FfgkWS4_K";
export const DEFAULT_SECRET = "S_49fmAsD6rRmUOaUcdiO6a0Ucc67PHJfXANE375NK_S";

/** The user that owns the simulator's API key. */
export const API_USER = { id: "6650d4c1a9e2b37f0c1d2e3f", username: "stackgate" } as const;

// Seeded stacks get ids from a fixed clock so that they are the same on every run.
const SEED_EPOCH_MS = Date.UTC(2024, 5, 4);

export interface KomodoSimulatorOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  key?: string;
  secret?: string;
  /** A count of generated stacks, or explicit seeds (see `demoStacks()`). Default none. */
  stacks?: number | StackSeed[];
  /** Server faults to start with; `updateDelayMs` here is the normal completion delay. */
  faults?: ServerFaults;
  /** Default "paged" (Komodo 2.3). */
  stackPaging?: StackPaging;
  /** ListStacks page size without `limit`. Default 50, as in Komodo's code. */
  defaultPageLimit?: number;
}

export interface FaultControl {
  readonly server: Readonly<ServerFaults>;
  stack(idOrName: string): Readonly<StackFaults>;
  /** Merges into the server faults (`undefined` removes a key); resolves once they are in effect. */
  set(patch: ServerFaults): Promise<void>;
  /** Merges into one stack's faults (`undefined` removes a key). */
  setStack(idOrName: string, patch: StackFaults): void;
  /** Back to the faults the server started with and each stack was added with. */
  reset(): Promise<void>;
}

export interface KomodoSimulator {
  readonly url: string;
  readonly port: number;
  readonly key: string;
  readonly secret: string;
  /** Every API request received, in order (also those refused). */
  readonly calls: readonly RecordedCall[];
  clearCalls(): void;
  readonly faults: FaultControl;
  addStack(seed: StackSeed): Types.StackListItem;
  /** The stack as `ListStacks` would show it now. */
  inspectStack(idOrName: string): Types.StackListItem | undefined;
  /**
   * Changes a service's image and/or update flag, as a changed compose file or registry would: an
   * update makes the registry serve a new build (digest), which the next pull fetches.
   */
  setService(idOrName: string, service: string, patch: { image?: string; updateAvailable?: boolean }): void;
  /** A new head of a repository stack's branch: the next deploy pulls and deploys it. */
  pushCommit(idOrName: string, commit: { hash: string; message: string }): void;
  /**
   * Records a completed deploy made outside the API; by default Komodo's auto-update redeploy
   * (operator "000000000000000000000004"), now, of the whole stack.
   */
  recordExternalDeploy(
    idOrName: string,
    options?: { operator?: string; at?: number; services?: string[] },
  ): Types.Update;
  /**
   * Starts a deploy made outside the API that completes after `durationMs` (default 0), announced on
   * the update stream as it starts and as it completes. Returns the Update in progress.
   */
  startExternalDeploy(
    idOrName: string,
    options?: { operator?: string; services?: string[]; durationMs?: number },
  ): Types.Update;
  /** `/ws/update`: who is logged in, and a way to drop every socket. */
  readonly updateStream: UpdateStreamControl;
  /** Resolves once the stack has an Update held by its `holdUpdates` fault (at once if it has). */
  whenHeld(idOrName: string): Promise<void>;
  /** Completes the stack's held Updates now. */
  releaseUpdates(idOrName: string): void;
  /** Resolves when no Update is in progress (held ones aside). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startKomodoSimulator(options: KomodoSimulatorOptions = {}): Promise<KomodoSimulator> {
  const key = options.key ?? DEFAULT_KEY;
  const secret = options.secret ?? DEFAULT_SECRET;
  const host = options.host ?? "127.0.0.1";
  const initialFaults = mergeFaults<ServerFaults>({}, options.faults ?? {});
  let serverFaults = initialFaults;

  const stacks = createStackRegistry(objectIdSource(() => SEED_EPOCH_MS));
  // Komodo names a service user's Updates (auto redeploys, webhooks) by the operator id itself.
  const updates = createUpdateStore(objectIdSource(), (operator) =>
    operator === API_USER.id ? API_USER.username : operator,
  );
  // Each stack's faults as it was added, for `faults.reset()`.
  const addedFaults = new WeakMap<SimStack, StackFaults>();
  function addStack(seed: StackSeed): SimStack {
    const stack = stacks.add(seed);
    addedFaults.set(stack, { ...stack.faults });
    return stack;
  }
  const seeds = typeof options.stacks === "number" ? generateStacks(options.stacks) : (options.stacks ?? []);
  for (const seed of seeds) addStack(seed);

  const timers = createTimers();
  const held = createHeldUpdates();
  const execution: ExecutionContext = {
    updates,
    operator: API_USER.id,
    clock: Date.now,
    later: timers.later,
    updateDelayMs: (stack) => stack.faults.updateDelayMs ?? serverFaults.updateDelayMs ?? 0,
    hold: held.hold,
  };
  const handlers = createHandlers({
    stacks,
    updates,
    execution,
    stackPaging: options.stackPaging ?? "paged",
    defaultPageLimit: options.defaultPageLimit ?? 50,
  });

  const calls: RecordedCall[] = [];
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    createRequestListener({
      credentials: { key, secret },
      handlers,
      faults: () => serverFaults,
      record: (call) => calls.push(call),
    }),
  );
  const updateStream = createUpdateStream({
    credentials: { key, secret },
    faults: () => serverFaults,
    subscribe: updates.subscribe,
    canRead: (target) => target.type !== "Stack" || !stacks.find(target.id)?.faults.unreadable,
  });
  server.on("upgrade", (request, socket, head) => {
    if (!updateStream.handleUpgrade(request, socket, head)) socket.destroy();
  });
  const port = await listen(server, options.port ?? 0, host);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  let closed = false;

  // Transitions of `down` are chained so that quick toggles cannot interleave.
  let transition = Promise.resolve();
  function applyDown(): Promise<void> {
    transition = transition
      .catch(() => undefined)
      .then(async () => {
        const down = closed || (serverFaults.down ?? false);
        if (down) updateStream.control.drop();
        if (down && server.listening) await stopListening(server);
        if (!down && !server.listening) await listen(server, port, host);
      });
    return transition;
  }
  await applyDown();

  function mustFind(idOrName: string): SimStack {
    const stack = stacks.find(idOrName);
    if (!stack) throw new Error(`the simulator has no stack ${idOrName}`);
    return stack;
  }

  const faults: FaultControl = {
    get server() {
      return { ...serverFaults };
    },
    stack: (idOrName) => ({ ...mustFind(idOrName).faults }),
    set(patch) {
      serverFaults = mergeFaults(serverFaults, patch);
      return applyDown();
    },
    setStack(idOrName, patch) {
      const stack = mustFind(idOrName);
      stack.faults = mergeFaults(stack.faults, patch);
    },
    reset() {
      serverFaults = initialFaults;
      for (const stack of stacks.list()) stack.faults = { ...addedFaults.get(stack) };
      return applyDown();
    },
  };

  return {
    url,
    port,
    key,
    secret,
    calls,
    clearCalls: () => {
      calls.length = 0;
    },
    faults,
    addStack: (seed) => toListItem(addStack(seed)),
    inspectStack(idOrName) {
      const stack = stacks.find(idOrName);
      return stack && toListItem(stack);
    },
    setService(idOrName, serviceName, patch) {
      const stack = mustFind(idOrName);
      const service = stack.services.find((candidate) => candidate.service === serviceName);
      if (!service) throw new Error(`stack ${stack.name} has no service ${serviceName}`);
      if (patch.image !== undefined) service.image = patch.image;
      if (patch.updateAvailable !== undefined) {
        service.updateAvailable = patch.updateAvailable;
        service.latest = patch.updateAvailable
          ? Math.max(service.running, service.pulled) + 1
          : service.running;
      }
      stack.config.file_contents = composeFile(stack.services);
      stack.updatedAt = Date.now();
    },
    pushCommit(idOrName, commit) {
      const stack = mustFind(idOrName);
      if (!stack.repository) throw new Error(`stack ${stack.name} is not a repository stack`);
      stack.repository.latest = commit;
    },
    recordExternalDeploy(idOrName, deploy = {}) {
      return recordDeploy(updates, mustFind(idOrName), {
        operator: deploy.operator ?? AUTO_REDEPLOY_OPERATOR,
        at: deploy.at ?? Date.now(),
        services: deploy.services ?? [],
      });
    },
    startExternalDeploy(idOrName, deploy = {}) {
      return startExternalDeploy(execution, mustFind(idOrName), {
        operator: deploy.operator ?? AUTO_REDEPLOY_OPERATOR,
        services: deploy.services ?? [],
        durationMs: deploy.durationMs ?? 0,
      });
    },
    updateStream: updateStream.control,
    whenHeld: (idOrName) => held.whenHeld(mustFind(idOrName)),
    releaseUpdates: (idOrName) => held.release(mustFind(idOrName)),
    settle: timers.idle,
    async close() {
      if (closed) return;
      closed = true;
      timers.cancel();
      updateStream.close();
      await applyDown();
    },
  };
}

/** Completion timers, so that `settle()` can wait for them and `close()` can cancel them. */
function createTimers() {
  const pending = new Set<NodeJS.Timeout>();
  let waiters: (() => void)[] = [];

  function wakeWaiters(): void {
    if (pending.size > 0) return;
    for (const wake of waiters) wake();
    waiters = [];
  }

  return {
    later(delayMs: number, task: () => void): void {
      const timer = setTimeout(() => {
        pending.delete(timer);
        task();
        wakeWaiters();
      }, delayMs);
      pending.add(timer);
    },
    idle(): Promise<void> {
      return new Promise((resolve) => {
        waiters.push(resolve);
        wakeWaiters();
      });
    },
    cancel(): void {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      wakeWaiters();
    },
  };
}

/** Completions kept back by the `holdUpdates` fault, per stack, until the test releases them. */
function createHeldUpdates() {
  const tasks = new Map<SimStack, (() => void)[]>();
  const waiters = new Map<SimStack, (() => void)[]>();
  return {
    hold(stack: SimStack, task: () => void): void {
      tasks.set(stack, [...(tasks.get(stack) ?? []), task]);
      for (const wake of waiters.get(stack) ?? []) wake();
      waiters.delete(stack);
    },
    whenHeld(stack: SimStack): Promise<void> {
      if (tasks.has(stack)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(stack, [...(waiters.get(stack) ?? []), resolve]));
    },
    release(stack: SimStack): void {
      const pending = tasks.get(stack) ?? [];
      tasks.delete(stack);
      for (const task of pending) task();
    },
  };
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting connections and destroys the open ones, so that clients fail at once. */
function stopListening(server: ReturnType<typeof createServer>): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
