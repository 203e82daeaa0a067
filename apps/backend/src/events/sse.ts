import type { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { contract, deployEvent, deployRun, finishedRun } from "@stackgate/contract";
import type { MiddlewareHandler } from "hono";
import type { DeployEvent, DeployRun } from "../deploy/run.ts";
import { admitCaller } from "../identity/access.ts";
import type { AccessWatch } from "../identity/access-watch.ts";
import type { Authenticate } from "../identity/authenticate.ts";
import type { Caller } from "../identity/caller.ts";
import { createMemoryRelease } from "../platform/memory-release.ts";
import type { DeployEventBus } from "./bus.ts";

const { route, meta } = contract.deploy.events["~orpc"];
/** The contract's route of the REST event stream (oRPC still documents it and serves `/rpc`). */
export const DEPLOY_EVENTS_PATH = route.path as string;

const KEEP_ALIVE_COMMENT = ": \n\n";
const frame = (json: string) => `event: message\ndata: ${json}\n\n`;

/**
 * `GET /api/v0/deploy/events` written straight to Node's response, with the same frames oRPC's
 * OpenAPI handler writes for the contract's event iterator (an opening comment, `event: message`
 * frames of JSON, `: ` comments to keep idle connections open), at a fraction of the memory per
 * subscriber: oRPC's event-iterator pipeline holds ~38 KiB of closures, promises and generators per
 * open stream (bench/RESULTS.md, issue 13). Each event is checked against the contract and
 * serialized once, whatever the number of subscribers. The dashboard's `/rpc` subscription (one per
 * tab) stays on oRPC.
 */
export function deployEventStream({
  events,
  authenticate,
  access,
  keepAliveMs = 15_000,
}: {
  events: DeployEventBus;
  authenticate: Authenticate;
  /** Ends a stream once its caller's access is gone, as their next request would be refused. */
  access: AccessWatch;
  keepAliveMs?: number;
}): MiddlewareHandler {
  const runJson = new WeakMap<DeployRun, string>();
  /** A run as the contract shows it (unknown fields stripped, as oRPC's output validation would). */
  const jsonOf = (run: DeployRun, schema: typeof deployRun | typeof finishedRun) => {
    let json = runJson.get(run);
    if (json === undefined) {
      json = JSON.stringify(schema.parse(run));
      runJson.set(run, json);
    }
    return json;
  };
  const eventFrames = new WeakMap<DeployEvent, string>();
  const frameOf = (event: Exclude<DeployEvent, { type: "subscribed" }>) => {
    let written = eventFrames.get(event);
    if (written === undefined) {
      if (event.type === "log") written = frame(JSON.stringify(deployEvent.parse(event)));
      else {
        const schema = event.type === "started" ? deployRun : finishedRun;
        written = frame(`{"type":"${event.type}","run":${jsonOf(event.run, schema)}}`);
      }
      eventFrames.set(event, written);
    }
    return written;
  };

  const open = new Set<ServerResponse>();
  const memory = createMemoryRelease();
  let keepAlive: NodeJS.Timeout | undefined;
  events.onClose(() => {
    for (const response of open) response.end();
  });

  function follow(response: ServerResponse, caller: Caller) {
    const visible = caller.runs;
    const { running, unsubscribe } = events.subscribe((event) => {
      if (event.type !== "subscribed" && visible.admits(events.runOf(event))) response.write(frameOf(event));
    });
    const runs = running.filter((run) => visible.admits(run)).map((run) => jsonOf(run, deployRun));
    // The answer ends when the connection closes, not with a last chunk: each event is then one
    // write to the socket, not a corked chunk flushed on the next tick (15 % less CPU per event at
    // 5,000 streams, bench/RESULTS.md). An event stream's connection is never reused anyway.
    response.useChunkedEncodingByDefault = false;
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(KEEP_ALIVE_COMMENT + frame(`{"type":"subscribed","running":[${runs.join(",")}]}`));
    open.add(response);
    keepAlive ??= setInterval(() => {
      for (const each of open) each.write(KEEP_ALIVE_COMMENT);
    }, keepAliveMs).unref();
    const unwatch = access.watch(caller, () => response.end());
    response.once("close", () => {
      unwatch();
      unsubscribe();
      open.delete(response);
      memory.ended();
      if (open.size === 0) {
        clearInterval(keepAlive);
        keepAlive = undefined;
      }
    });
  }

  return async (c, next) => {
    const response = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    // Not served by Node's HTTP server (a fetch handler elsewhere), or a HEAD: oRPC's handler answers.
    if (!response || c.req.method !== "GET") return next();
    const caller = await admitCaller(authenticate, c.req.raw.headers, { ...meta, name: "deploy.events" });
    if (!response.destroyed) follow(response, caller);
    return RESPONSE_ALREADY_SENT;
  };
}
