import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { EVERY_STACK, runsVisibleIn } from "../identity/apikeys/scope.ts";
import { createDeployEventBus } from "./bus.ts";
import { DEPLOY_EVENTS_PATH, deployEventStream } from "./sse.ts";

/** This file is about the stream's frames: the caller's access never ends (access-lost.test.ts covers that). */
const accessKept = { watch: () => () => {}, close: () => {} };

describe("the REST deploy event stream", () => {
  it("keeps an idle stream open with comments, and ends it when the bus closes", async () => {
    const events = createDeployEventBus();
    const app = new Hono();
    const authenticate = async () =>
      ({
        kind: "caller",
        caller: {
          via: "session",
          userId: "u1",
          email: "ada@example.test",
          actorName: "Ada Admin",
          role: "admin",
          sessionId: "s1",
          stacks: EVERY_STACK,
          runs: runsVisibleIn(EVERY_STACK),
        },
      }) as const;
    app.get(
      DEPLOY_EVENTS_PATH,
      deployEventStream({ events, authenticate, access: accessKept, keepAliveMs: 20 }),
    );
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${DEPLOY_EVENTS_PATH}`);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let text = "";
      while (!text.endsWith(": \n\n: \n\n")) text += (await reader.read()).value;
      expect(text).toBe(': \n\nevent: message\ndata: {"type":"subscribed","running":[]}\n\n: \n\n: \n\n');
      expect(events.listenerCount()).toBe(1);
      events.close();
      while (!(await reader.read()).done);
      await expect.poll(() => events.listenerCount()).toBe(0);
    } finally {
      await reader.cancel();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
