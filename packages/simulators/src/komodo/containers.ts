import { createHash } from "node:crypto";
import type { Types } from "komodo_client";
import type { SimService, SimStack } from "./stacks.ts";

/** How often a service in the `crash-loop` fault restarts, and when one with `exits` stops. */
export const CRASH_LOOP_EVERY_MS = 2000;
export const EXITS_AFTER_MS = 1000;

/** Hashes already computed: every listing of 200 stacks would hash each image and container again. */
const hashes = new Map<string, string>();
function sha256(text: string): string {
  let hash = hashes.get(text);
  if (hash === undefined) {
    hash = createHash("sha256").update(text).digest("hex");
    hashes.set(text, hash);
  }
  return hash;
}

/** The repository of an image reference: without its tag (`ghcr.io/acme/web:1.4` → `ghcr.io/acme/web`). */
export function repositoryOf(image: string): string {
  const withoutDigest = image.split("@")[0]!;
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.lastIndexOf(":");
  return colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/**
 * The registry digest of one build of an image: a service's image is rebuilt (generation + 1)
 * whenever its registry gets an update, so every build has a digest of its own, the same on every run.
 */
export const digestOf = (image: string, generation: number) => `sha256:${sha256(`${image}#${generation}`)}`;

/** What a container of the service runs, or did, as docker would describe it now. */
interface ServiceHealth {
  state: Types.ContainerStateStatusEnum;
  status: string;
  exitCode: number;
  restarts: number;
  health?: "healthy" | "unhealthy";
}

const seconds = (ms: number) => Math.max(1, Math.floor(ms / 1000));

function healthOf(stack: SimStack, service: SimService, position: number, now: number): ServiceHealth {
  const since = now - service.createdAt;
  const fault = position === 0 && stack.deployedAt !== undefined ? stack.faults.afterDeploy : undefined;
  if (fault === "crash-loop") {
    const restarts = Math.floor((now - stack.deployedAt!) / CRASH_LOOP_EVERY_MS);
    if (restarts > 0) {
      const ago = seconds((now - stack.deployedAt!) % CRASH_LOOP_EVERY_MS);
      return {
        state: "restarting" as Types.ContainerStateStatusEnum,
        status: `Restarting (1) ${ago} seconds ago`,
        exitCode: 1,
        restarts,
      };
    }
  }
  if (fault === "exits" && now - stack.deployedAt! >= EXITS_AFTER_MS) {
    const ago = seconds(now - stack.deployedAt! - EXITS_AFTER_MS);
    return {
      state: "exited" as Types.ContainerStateStatusEnum,
      status: `Exited (1) ${ago} seconds ago`,
      exitCode: 1,
      restarts: 0,
    };
  }
  if (stack.state === "stopped") {
    return {
      state: "exited" as Types.ContainerStateStatusEnum,
      status: `Exited (0) ${seconds(since)} seconds ago`,
      exitCode: 0,
      restarts: 0,
    };
  }
  if (stack.state === "restarting") {
    return {
      state: "restarting" as Types.ContainerStateStatusEnum,
      status: "Restarting (1) 1 second ago",
      exitCode: 1,
      restarts: 1,
    };
  }
  const unhealthy = fault === "unhealthy" || (stack.state === "unhealthy" && position === 0);
  return {
    state: "running" as Types.ContainerStateStatusEnum,
    status: `Up ${seconds(since)} seconds${unhealthy ? " (unhealthy)" : ""}`,
    exitCode: 0,
    restarts: 0,
    health: unhealthy ? "unhealthy" : undefined,
  };
}

/** The stack's state as Komodo's monitor reports it now, given what its containers do. */
export function monitoredState(stack: SimStack, now: number): SimStack["state"] {
  if (stack.state !== "running" || stack.deployedAt === undefined || !stack.faults.afterDeploy)
    return stack.state;
  const first = stack.services[0];
  if (!first) return stack.state;
  const { state, health } = healthOf(stack, first, 0, now);
  if (state === "restarting") return "restarting";
  if (state === "exited" || health === "unhealthy") return "unhealthy";
  return stack.state;
}

const deployed = (stack: SimStack) => stack.state !== "down" && stack.state !== "unknown";

const containerName = (stack: SimStack, service: SimService) => `${stack.name}-${service.service}-1`;

/** `ListStackServices` (2.x): each service with its container and the running image's repo digests. */
export function stackServices(stack: SimStack, now: number): Types.StackService[] {
  return stack.services.map((service, position) => {
    const base = {
      stack_id: stack.id,
      stack_name: stack.name,
      service: service.service,
      image: service.image,
    };
    if (!deployed(stack)) return { ...base, state: "Unknown" as Types.StackServiceState };
    const { state, status } = healthOf(stack, service, position, now);
    const running = digestOf(service.image, service.running);
    return {
      ...base,
      state: (state.charAt(0).toUpperCase() + state.slice(1)) as Types.StackServiceState,
      container: {
        server_id: stack.serverId,
        name: containerName(stack, service),
        id: sha256(`${containerName(stack, service)}#${service.createdAt}`),
        image: service.image,
        image_id: `sha256:${sha256(`${running}#local`)}`,
        created: Math.floor(service.createdAt / 1000),
        state,
        status,
        networks: [`${stack.name}_default`],
      },
      image_digests: [`${repositoryOf(service.image)}@${running}`],
    };
  });
}

/** `InspectStackContainer`: docker's inspect of the service's container, the parts Stackgate reads. */
export function inspectContainer(
  stack: SimStack,
  service: SimService,
  now: number,
): Types.Container | undefined {
  if (!deployed(stack)) return undefined;
  const position = stack.services.indexOf(service);
  const { state, exitCode, restarts, health } = healthOf(stack, service, position, now);
  return {
    Id: sha256(`${containerName(stack, service)}#${service.createdAt}`),
    Name: `/${containerName(stack, service)}`,
    Created: new Date(service.createdAt).toISOString(),
    Image: `sha256:${sha256(`${digestOf(service.image, service.running)}#local`)}`,
    RestartCount: restarts,
    State: {
      Status: state,
      Running: state === "running" || state === "restarting",
      Restarting: state === "restarting",
      Paused: false,
      OOMKilled: false,
      Dead: false,
      ExitCode: exitCode,
      ...(health
        ? {
            Health: {
              Status: health as Types.HealthStatusEnum,
              FailingStreak: health === "unhealthy" ? 3 : 0,
            },
          }
        : {}),
    },
  };
}
