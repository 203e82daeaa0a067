import type { Types } from "komodo_client";
import { digestOf, monitoredState } from "./containers.ts";
import { unknownStack } from "./errors.ts";
import type { StackFaults } from "./faults.ts";
import { isObjectId } from "./ids.ts";
import type { Commit, StackSeed, StackStateName } from "./seeds.ts";

export type ExecuteType = "PullStack" | "DeployStack" | "DestroyStack";

export interface SimService {
  service: string;
  image: string;
  updateAvailable: boolean;
  /**
   * Builds of the image (digests: containers.ts): the one the container runs, the one the host has
   * pulled, and the registry's latest. A registry update makes a new latest build.
   */
  running: number;
  pulled: number;
  latest: number;
  /** When the service's container was last created (a deploy that changes its image recreates it). */
  createdAt: number;
}

/** A stack as the simulator keeps it; `toListItem` and `toStack` give its wire shapes. */
export interface SimStack {
  readonly id: string;
  readonly name: string;
  readonly serverId: string;
  readonly serverName: string;
  state: Exclude<StackStateName, "deploying">;
  services: SimService[];
  config: Types.StackConfig;
  faults: StackFaults;
  /** The action holding the stack (Komodo's in-memory action state), if any. */
  activeAction?: ExecuteType;
  updatedAt: number;
  /** When a deploy of it last succeeded; the `afterDeploy` fault counts from there. */
  deployedAt?: number;
  /** A repository stack's commits: deployed, and the branch's head. */
  repository?: { deployed: Commit; latest: Commit };
}

// Komodo serialises Rust's `None` as null, where komodo_client types the field as optional.
const NONE = null as unknown as undefined;

export function createStackRegistry(newId: () => string, clock: () => number = Date.now) {
  const byId = new Map<string, SimStack>();
  const byName = new Map<string, SimStack>();
  const serverIds = new Map<string, string>();

  function serverId(name: string): string {
    let id = serverIds.get(name);
    if (!id) {
      id = newId();
      serverIds.set(name, id);
    }
    return id;
  }

  /** Like Komodo, a 24-hex string is looked up as an id, anything else as a name. */
  function find(idOrName: string): SimStack | undefined {
    return isObjectId(idOrName) ? byId.get(idOrName) : byName.get(idOrName);
  }

  return {
    find,

    get(idOrName: string): SimStack {
      const stack = find(idOrName);
      if (!stack) throw unknownStack(idOrName);
      return stack;
    },

    add(seed: StackSeed): SimStack {
      if (byName.has(seed.name)) throw new Error(`a stack named ${seed.name} already exists`);
      const serverName = seed.server ?? "local";
      const stack: SimStack = {
        id: newId(),
        name: seed.name,
        serverId: serverId(serverName),
        serverName,
        state: seed.state ?? "running",
        services: (seed.services ?? [{ service: seed.name, image: `${seed.name}:latest` }]).map(
          (service) => ({
            service: service.service,
            image: service.image,
            updateAvailable: service.updateAvailable ?? false,
            running: 1,
            pulled: 1,
            latest: service.updateAvailable ? 2 : 1,
            createdAt: clock(),
          }),
        ),
        repository: seed.repository && {
          deployed: seed.repository.deployed,
          latest: seed.repository.latest ?? seed.repository.deployed,
        },
        config: defaultConfig(serverIds.get(serverName)!, seed.pollForUpdates ?? false),
        faults: { ...seed.faults },
        updatedAt: clock(),
      };
      stack.config.file_contents = composeFile(stack.services);
      byId.set(stack.id, stack);
      byName.set(stack.name, stack);
      return stack;
    },

    remove(stack: SimStack): void {
      byId.delete(stack.id);
      byName.delete(stack.name);
    },

    /** Sorted by name, as Komodo lists resources. */
    list(): SimStack[] {
      return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}

export type StackRegistry = ReturnType<typeof createStackRegistry>;

/** The state Komodo reports: `deploying` while a deploy holds the stack, else what its containers do. */
export function reportedState(stack: SimStack, now = Date.now()): StackStateName {
  return stack.activeAction === "DeployStack" ? "deploying" : monitoredState(stack, now);
}

/** The compose status string docker reports for the stack's containers; none when it is not deployed. */
export function composeStatus(stack: SimStack): string | undefined {
  const count = stack.services.length;
  switch (stack.state) {
    case "down":
    case "unknown":
      return undefined;
    case "stopped":
      return `exited(${count})`;
    case "unhealthy":
      return count > 1 ? `running(${count - 1}), exited(1)` : "running(1), exited(1)";
    default:
      return `${stack.state}(${count})`;
  }
}

export function toListItem(stack: SimStack): Types.StackListItem {
  return {
    id: stack.id,
    type: "Stack",
    name: stack.name,
    template: false,
    tags: [],
    info: {
      swarm_id: "",
      swarm_name: "",
      server_id: stack.serverId,
      server_name: stack.serverName,
      files_on_host: false,
      file_contents: true,
      linked_repo: "",
      git_provider: stack.config.git_provider,
      repo: "",
      branch: stack.config.branch,
      repo_link: "",
      state: reportedState(stack) as Types.StackState,
      status: composeStatus(stack) ?? NONE,
      services: stack.services.map((service) => ({
        service: service.service,
        image: service.image,
        update_available: service.updateAvailable,
      })),
      auto_update_all_services: stack.config.auto_update_all_services ?? false,
      project_missing: false,
      missing_files: [],
      deployed_hash: stack.repository?.deployed.hash ?? NONE,
      latest_hash: stack.repository?.latest.hash ?? NONE,
    },
  };
}

export function toStack(stack: SimStack): Types.Stack {
  // As 2.x stores them: no digest for what is deployed; the registry's latest for the latest services.
  const services = stack.services.map((service) => ({
    service_name: service.service,
    container_name: `${stack.name}-${service.service}-1`,
    image: service.image,
  }));
  const latestServices = stack.services.map((service, index) => ({
    ...services[index]!,
    image_digest: `${service.image}@${digestOf(service.image, service.latest)}`,
  }));
  const deployed = stack.state !== "down";
  return {
    _id: { $oid: stack.id },
    name: stack.name,
    description: "",
    template: false,
    tags: [],
    config: structuredClone(stack.config),
    info: {
      missing_files: [],
      deployed_project_name: deployed ? stack.name : NONE,
      deployed_services: deployed ? services : NONE,
      deployed_contents: deployed
        ? [{ path: "compose.yaml", contents: stack.config.file_contents ?? "" }]
        : NONE,
      latest_services: latestServices,
      deployed_hash: stack.repository?.deployed.hash ?? NONE,
      deployed_message: stack.repository?.deployed.message ?? NONE,
      latest_hash: stack.repository?.latest.hash ?? NONE,
      latest_message: stack.repository?.latest.message ?? NONE,
    },
    base_permission: "None" as Types.PermissionLevel,
    updated_at: stack.updatedAt,
  };
}

function defaultConfig(serverId: string, pollForUpdates: boolean): Types.StackConfig {
  return {
    swarm_id: "",
    server_id: serverId,
    links: [],
    project_name: "",
    auto_pull: true,
    run_build: false,
    poll_for_updates: pollForUpdates,
    auto_update: false,
    auto_update_all_services: false,
    auto_update_skip_services: [],
    destroy_before_deploy: false,
    skip_secret_interp: false,
    linked_repo: "",
    git_provider: "github.com",
    git_https: true,
    git_account: "",
    repo: "",
    branch: "main",
    commit: "",
    clone_path: "",
    reclone: false,
    webhook_enabled: true,
    webhook_secret: "",
    webhook_force_deploy: false,
    files_on_host: false,
    run_directory: "",
    file_paths: [],
    env_file_path: ".env",
    send_alerts: true,
    extra_args: [],
    build_extra_args: [],
    compose_cmd_wrapper: "",
    compose_cmd_wrapper_include: [],
    ignore_services: [],
    file_contents: "",
    environment: "",
  };
}

export function composeFile(services: SimService[]): string {
  const lines = ["services:"];
  for (const { service, image } of services) {
    lines.push(`  ${service}:`, `    image: ${image}`, "    restart: unless-stopped");
  }
  return `${lines.join("\n")}\n`;
}
