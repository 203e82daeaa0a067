import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import { contract } from "@stackgate/contract";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { ConnectionService } from "../connection/service.ts";
import type { DeployEventBus } from "../events/bus.ts";
import type { ScanFinished } from "../scans/queue.ts";
import type { ScanService } from "../scans/service.ts";
import type { KomodoClient } from "../upstream/komodo-client.ts";

const DEPLOY_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SEVERITIES = ["critical", "high", "medium", "low", "unknown"] as const;
/** Komodo's API calls (`/read/ListStacks`, `/execute/DeployStack`…): the only client requests labelled by call. */
const KOMODO_CALL = /^\/(read|write|execute|auth|user)\/([A-Za-z]+)$/;

/** The contract's routes as patterns, so a request is labelled `/api/v0/stacks/{stack}`, never with a name. */
function routeTemplates(): Array<{ method: string; template: string; pattern: RegExp }> {
  const collect = (router: object): Array<{ method: string; path: string }> =>
    Object.values(router).flatMap((value) => {
      const definition = (value as { "~orpc"?: { route: { method?: string; path?: string } } })["~orpc"];
      if (!definition) return collect(value as object);
      const { method = "POST", path } = definition.route;
      return path ? [{ method, path }] : [];
    });
  return collect(contract).map(({ method, path }) => ({
    method,
    template: path,
    pattern: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
  }));
}

const STATIC_ROUTES = new Set(["/doc", "/reference", "/reference/scalar.js", "/metrics"]);

/**
 * The Prometheus registry of one backend: counters fed by deploys, scans and requests, gauges read
 * when scraped. No label carries a secret, a key or a person: stacks, images, routes and Komodo's
 * call names only.
 */
export function createMetrics({
  events,
  scans,
  connection,
}: {
  events: DeployEventBus;
  scans: ScanService;
  connection: ConnectionService;
}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const deploys = new Counter({
    name: "stackgate_deploys_total",
    help: "Finished deploys by action, outcome and who asked (session, apiKey, or komodo for deploys started outside Stackgate)",
    labelNames: ["action", "outcome", "caller"] as const,
    registers,
  });
  const settled = new Counter({
    name: "stackgate_deploys_settled_total",
    help: "Watched deploys by how they ended: stable, unstable (a service restarted, exited or turned unhealthy), or skipped (Komodo could not be read)",
    labelNames: ["action", "state"] as const,
    registers,
  });
  const deployDuration = new Histogram({
    name: "stackgate_deploy_duration_seconds",
    help: "Time from a deploy's start to its end, by action and outcome",
    labelNames: ["action", "outcome"] as const,
    buckets: DEPLOY_BUCKETS,
    registers,
  });
  const stepDuration = new Histogram({
    name: "stackgate_deploy_step_duration_seconds",
    help: "Time of each Komodo execute step of a deploy (PullStack, DestroyStack, DeployStack), until Komodo completed it",
    labelNames: ["step", "outcome"] as const,
    buckets: DEPLOY_BUCKETS,
    registers,
  });
  const upstreamDuration = new Histogram({
    name: "stackgate_upstream_request_duration_seconds",
    help: "Time of each HTTP call to Komodo, by call (e.g. read/ListStacks)",
    labelNames: ["call"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const upstreamErrors = new Counter({
    name: "stackgate_upstream_request_errors_total",
    help: "HTTP calls to Komodo that failed, by call and kind (the HTTP status, or network)",
    labelNames: ["call", "kind"] as const,
    registers,
  });
  const scansFinished = new Counter({
    name: "stackgate_scans_total",
    help: "Finished image scans by outcome (done, failed, scanner-unavailable)",
    labelNames: ["outcome"] as const,
    registers,
  });
  const httpRequests = new Counter({
    name: "stackgate_http_requests_total",
    help: "Requests the backend answered, by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: "stackgate_http_request_duration_seconds",
    help: "Time to answer a request (to the start of the body for event streams), by method and route",
    labelNames: ["method", "route"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });

  new Gauge({
    name: "stackgate_scan_queue_length",
    help: "Image scans waiting for a scanner slot",
    registers,
    collect() {
      this.set(scans.queueSize().waiting);
    },
  });
  new Gauge({
    name: "stackgate_scans_running",
    help: "Image scans running now",
    registers,
    collect() {
      this.set(scans.queueSize().running);
    },
  });
  new Gauge({
    name: "stackgate_image_vulnerabilities",
    help: "Vulnerabilities of each image's last successful scan, by severity",
    labelNames: ["image", "severity"] as const,
    registers,
    async collect() {
      this.reset();
      for (const [image, counts] of await scans.vulnerabilityCounts()) {
        for (const severity of SEVERITIES) this.set({ image, severity }, counts[severity]);
      }
    },
  });
  new Gauge({
    name: "stackgate_event_streams_open",
    help: "Open live deploy event streams (dashboards and pipelines)",
    registers,
    collect() {
      this.set(events.listenerCount());
    },
  });
  new Gauge({
    name: "stackgate_update_stream_state",
    help: "Komodo's update stream: 1 for the current state (connected, connecting, disconnected, none without a connection)",
    labelNames: ["state"] as const,
    registers,
    collect() {
      const current = connection.updateStream()?.status ?? "none";
      for (const state of ["connected", "connecting", "disconnected", "none"]) {
        this.set({ state }, state === current ? 1 : 0);
      }
    },
  });

  // Deploys, whoever started them, as the event stream sees them.
  const stopDeploys = events.observe((event) => {
    if (event.type === "settled" && event.run.settle)
      settled.inc({ action: event.run.action, state: event.run.settle.state });
    if (event.type !== "finished") return;
    const { run } = event;
    const outcome = run.success ? "success" : "failure";
    const caller = "source" in run && run.source === "komodo" ? "komodo" : run.via;
    deploys.inc({ action: run.action, outcome, caller });
    const seconds = (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000;
    deployDuration.observe({ action: run.action, outcome }, Math.max(0, seconds));
  });

  // Komodo calls, timed where Node's HTTP client starts and ends them: nothing in the client changes.
  const started = new WeakMap<ClientRequest, { call: string; at: number }>();
  const onStart = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const match = KOMODO_CALL.exec(request.path);
    if (match) started.set(request, { call: `${match[1]}/${match[2]}`, at: performance.now() });
  };
  const onResponse = (message: unknown) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const call = started.get(request);
    if (!call) return;
    started.delete(request);
    upstreamDuration.observe({ call: call.call }, (performance.now() - call.at) / 1000);
    const status = response.statusCode ?? 0;
    if (status >= 400) upstreamErrors.inc({ call: call.call, kind: String(status) });
  };
  const onError = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const call = started.get(request);
    if (!call) return;
    started.delete(request);
    upstreamErrors.inc({ call: call.call, kind: "network" });
  };
  subscribe("http.client.request.start", onStart);
  subscribe("http.client.response.finish", onResponse);
  subscribe("http.client.request.error", onError);

  const routes = routeTemplates();
  const routeOf = (method: string, path: string) => {
    if (STATIC_ROUTES.has(path)) return path;
    if (path.startsWith("/api/auth/")) return "/api/auth/*";
    if (path.startsWith("/rpc/")) return "/rpc/*";
    return routes.find((route) => route.method === method && route.pattern.test(path))?.template ?? "other";
  };

  /** Komodo clients whose execute steps are timed, one wrapper per client. */
  const timedClients = new WeakMap<KomodoClient, KomodoClient>();
  function timeSteps(client: KomodoClient): KomodoClient {
    let timed = timedClients.get(client);
    if (!timed) {
      const executeAndWait: KomodoClient["executeAndWait"] = async (type, params, options) => {
        const begun = performance.now();
        let outcome = "failure";
        try {
          const update = await client.executeAndWait(type, params, options);
          outcome = "success";
          return update;
        } finally {
          stepDuration.observe({ step: type, outcome }, (performance.now() - begun) / 1000);
        }
      };
      timed = { ...client, executeAndWait };
      timedClients.set(client, timed);
    }
    return timed;
  }

  return {
    registry,
    contentType: registry.contentType,
    /** The text a scrape gets. */
    render: () => registry.metrics(),

    scanFinished(finished: ScanFinished) {
      scansFinished.inc({ outcome: finished.outcome });
    },

    httpRequest(method: string, path: string, status: number, seconds: number) {
      const route = routeOf(method, path);
      httpRequests.inc({ method, route, status: String(status) });
      httpDuration.observe({ method, route }, seconds);
    },

    /** The connection as the deploy service uses it, with each execute step timed. */
    timedConnection(service: ConnectionService): ConnectionService {
      return { ...service, requireClient: () => timeSteps(service.requireClient()) };
    },

    close() {
      stopDeploys();
      unsubscribe("http.client.request.start", onStart);
      unsubscribe("http.client.response.finish", onResponse);
      unsubscribe("http.client.request.error", onError);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
