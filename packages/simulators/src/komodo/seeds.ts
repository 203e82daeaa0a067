import type { Types } from "komodo_client";
import type { StackFaults } from "./faults.ts";

/** A stack state as its wire string ("running", "down", ...). `deploying` is shown only while a deploy runs. */
export type StackStateName = `${Types.StackState}`;

export interface ServiceSeed {
  service: string;
  image: string;
  updateAvailable?: boolean;
}

export interface StackSeed {
  name: string;
  /** Default "running". */
  state?: Exclude<StackStateName, "deploying">;
  /** Default: one service named after the stack, image `<name>:latest`. */
  services?: ServiceSeed[];
  pollForUpdates?: boolean;
  /** Name of the server the stack runs on. Default "local". */
  server?: string;
  faults?: StackFaults;
  /**
   * A stack whose compose files come from a git repository: the commit deployed, and the branch's
   * head when it is ahead (the next deploy pulls it and deploys it).
   */
  repository?: { deployed: Commit; latest?: Commit };
}

/** A commit as Komodo keeps it for a repository stack: its short hash and its message. */
export interface Commit {
  hash: string;
  message: string;
}

type AppTemplate = { name: string; services: [service: string, image: string][] };

/** Common self-hosted apps with image references as they appear in real compose files. */
const APPS: AppTemplate[] = [
  { name: "traefik", services: [["traefik", "traefik:v3.1.6"]] },
  {
    name: "gitea",
    services: [
      ["server", "gitea/gitea:1.22.3"],
      ["db", "postgres:16-alpine"],
    ],
  },
  { name: "grafana", services: [["grafana", "grafana/grafana:11.2.2"]] },
  {
    name: "prometheus",
    services: [
      ["prometheus", "prom/prometheus:v2.54.1"],
      ["node-exporter", "prom/node-exporter:v1.8.2"],
    ],
  },
  {
    name: "nextcloud",
    services: [
      ["app", "nextcloud:29.0.8-apache"],
      ["db", "mariadb:11.4"],
      ["redis", "redis:7.4-alpine"],
    ],
  },
  { name: "vaultwarden", services: [["vaultwarden", "vaultwarden/server:1.32.1"]] },
  { name: "postgres", services: [["postgres", "postgres:16.4"]] },
  {
    name: "immich",
    services: [
      ["immich-server", "ghcr.io/immich-app/immich-server:v1.117.0"],
      ["immich-machine-learning", "ghcr.io/immich-app/immich-machine-learning:v1.117.0"],
      ["redis", "docker.io/redis:6.2-alpine"],
    ],
  },
  { name: "uptime-kuma", services: [["uptime-kuma", "louislam/uptime-kuma:1.23.15"]] },
  {
    name: "paperless",
    services: [
      ["webserver", "ghcr.io/paperless-ngx/paperless-ngx:2.12.1"],
      ["broker", "docker.io/library/redis:7"],
    ],
  },
  { name: "jellyfin", services: [["jellyfin", "jellyfin/jellyfin:10.9.11"]] },
  {
    name: "home-assistant",
    services: [["homeassistant", "ghcr.io/home-assistant/home-assistant:2024.10.1"]],
  },
  {
    name: "authentik",
    services: [
      ["server", "ghcr.io/goauthentik/server:2024.8.3"],
      ["worker", "ghcr.io/goauthentik/server:2024.8.3"],
      ["postgresql", "docker.io/library/postgres:16-alpine"],
    ],
  },
  { name: "minio", services: [["minio", "quay.io/minio/minio:RELEASE.2024-10-02T17-50-41Z"]] },
  { name: "n8n", services: [["n8n", "docker.n8n.io/n8nio/n8n:1.62.5"]] },
  {
    name: "plausible",
    services: [
      ["plausible", "ghcr.io/plausible/community-edition:v2.1.4"],
      ["plausible_events_db", "clickhouse/clickhouse-server:24.3.3.102-alpine"],
    ],
  },
  { name: "outline", services: [["outline", "outlinewiki/outline:0.80.2"]] },
  { name: "mealie", services: [["mealie", "ghcr.io/mealie-recipes/mealie:v1.12.0"]] },
  { name: "pihole", services: [["pihole", "pihole/pihole:2024.07.0"]] },
  {
    name: "loki",
    services: [
      ["loki", "grafana/loki:3.2.0"],
      ["promtail", "grafana/promtail:3.2.0"],
    ],
  },
  { name: "homepage", services: [["homepage", "ghcr.io/gethomepage/homepage:v0.9.10"]] },
  { name: "syncthing", services: [["syncthing", "syncthing/syncthing:1.27.12"]] },
  { name: "mosquitto", services: [["mosquitto", "eclipse-mosquitto:2.0.19"]] },
  { name: "wikijs", services: [["wiki", "ghcr.io/requarks/wiki:2.5"]] },
];

/**
 * `count` plausible stacks, the same on every run: names are unique (`gitea`, then `gitea-2`, ...),
 * most stacks run, some are down, stopped or unhealthy, and some services have an update.
 */
export function generateStacks(count: number): StackSeed[] {
  return Array.from({ length: count }, (_, index) => {
    const app = APPS[index % APPS.length];
    const round = Math.floor(index / APPS.length);
    return {
      name: round === 0 ? app.name : `${app.name}-${round + 1}`,
      state: generatedState(index),
      services: app.services.map(([service, image], position) => ({
        service,
        image,
        updateAvailable: position === 0 && index % 5 === 1,
      })),
    };
  });
}

function generatedState(index: number): NonNullable<StackSeed["state"]> {
  if (index % 7 === 6) return "down";
  if (index % 11 === 10) return "stopped";
  if (index % 13 === 12) return "unhealthy";
  return "running";
}

/** A realistic compose failure for the demo stack whose deploys fail. */
export const DEMO_DEPLOY_ERROR =
  "Error response from daemon: driver failed programming external connectivity on endpoint " +
  "outline-outline-1 (3f9c2d7e1b0a): Bind for 0.0.0.0:3000 failed: port is already allocated";

/**
 * About twenty self-hosted stacks across states, some with image updates, one (`outline`) whose
 * deploys fail, one (`loki`) whose deploys do not stay up, and one (`billing`) whose image lives in
 * a private registry so a scan of it fails.
 */
export function demoStacks(): StackSeed[] {
  const services = (name: string, updates: string[] = []): ServiceSeed[] => {
    const app = APPS.find((candidate) => candidate.name === name);
    if (!app) throw new Error(`no app template named ${name}`);
    return app.services.map(([service, image]) => ({
      service,
      image,
      updateAvailable: updates.includes(service),
    }));
  };
  return [
    { name: "traefik", services: services("traefik"), pollForUpdates: true },
    { name: "gitea", services: services("gitea", ["server"]), pollForUpdates: true },
    { name: "grafana", services: services("grafana") },
    { name: "prometheus", services: services("prometheus", ["node-exporter"]) },
    { name: "nextcloud", state: "unhealthy", services: services("nextcloud") },
    { name: "vaultwarden", services: services("vaultwarden", ["vaultwarden"]), pollForUpdates: true },
    { name: "postgres", services: services("postgres") },
    { name: "immich", state: "restarting", services: services("immich", ["immich-server"]) },
    { name: "uptime-kuma", services: services("uptime-kuma") },
    { name: "paperless", state: "stopped", services: services("paperless") },
    { name: "jellyfin", services: services("jellyfin", ["jellyfin"]), server: "media" },
    { name: "home-assistant", services: services("home-assistant"), server: "media" },
    { name: "authentik", services: services("authentik") },
    { name: "minio", state: "down", services: services("minio") },
    { name: "n8n", services: services("n8n", ["n8n"]) },
    {
      name: "outline",
      state: "down",
      services: services("outline"),
      faults: { failWith: DEMO_DEPLOY_ERROR },
    },
    { name: "mealie", state: "down", services: services("mealie") },
    { name: "pihole", services: services("pihole") },
    // Its first service restarts in a loop after any deploy: the demo's unstable deploy.
    { name: "loki", state: "unhealthy", services: services("loki"), faults: { afterDeploy: "crash-loop" } },
    {
      name: "billing",
      services: [
        { service: "api", image: "registry.example.com/private/billing:2.1" },
        { service: "cache", image: "redis:7.4-alpine" },
      ],
    },
  ];
}
