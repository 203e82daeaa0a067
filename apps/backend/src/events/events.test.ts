import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGateway } from "@stackgate/gateway";
import type { KomodoSimulator } from "@stackgate/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEventStream } from "../testing/event-stream.ts";
import { startConnectedBackend, type TestBackend } from "../testing/harness.ts";

let komodo: KomodoSimulator;
let app: TestBackend;
let gateway: Server;
let gatewayUrl: string;
let cookie: string;
let key: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ komodo, app, cookie, key, close } = await startConnectedBackend({
    komodo: {
      stacks: [
        { name: "web" },
        { name: "api" },
        { name: "broken", faults: { failWith: "pull access denied" } },
      ],
    },
    keyName: "events-pipeline",
  }));
  gateway = createGateway({ backendUrl: app.url, frontendUrl: "http://127.0.0.1:9", version: "test" });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  gateway.closeAllConnections();
  gateway.close();
  await close();
});

const deploy = (stack: string, action: string, headers: Record<string, string>) =>
  app.request("/api/v0/deploy", { method: "POST", headers, json: { stack, action } });

describe("live deploy events", () => {
  it("streams subscribed → started → log → finished for a deploy, with the same run", async () => {
    const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": key });
    try {
      expect(stream.response.headers.get("content-type")).toMatch(/text\/event-stream/);
      expect(await stream.next()).toEqual({ type: "subscribed", running: [] });
      const answered = deploy("web", "pull", { cookie });
      const started = await stream.next();
      expect(started.type).toBe("started");
      expect(started.run).toMatchObject({
        stack: "web",
        action: "pull",
        via: "session",
        actorName: "Ada Admin",
      });
      expect(started.run.step).toBeUndefined();
      expect(Date.parse(started.run.startedAt)).not.toBeNaN();
      // The same run again as each step begins, then what Komodo printed, then its end.
      expect(await stream.next()).toEqual({ type: "started", run: { ...started.run, step: "pull" } });
      const log = await stream.next();
      expect(log).toMatchObject({ type: "log", runId: started.run.id, stack: "web" });
      expect(log.stages).toEqual([
        expect.objectContaining({
          stage: "Compose Pull",
          success: true,
          command: expect.stringContaining("pull"),
        }),
      ]);
      const finished = await stream.next();
      expect(finished.type).toBe("finished");
      expect(finished.run).toMatchObject({
        ...started.run,
        success: true,
        message: "Acción 'pull' completada para 'web'",
      });
      expect(Date.parse(finished.run.finishedAt)).toBeGreaterThanOrEqual(Date.parse(started.run.startedAt));
      expect((await answered).status).toBe(200);
    } finally {
      stream.close();
    }
  });

  it("reports a failure with the upstream's reason, for deploys made with a key", async () => {
    const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { cookie });
    try {
      await stream.next();
      await deploy("broken", "pull", { "x-api-key": key });
      const started = await stream.next();
      expect(started.run).toMatchObject({ via: "apiKey", actorName: "API Key: events-pipeline" });
      expect((await stream.next()).run.step).toBe("pull");
      const log = await stream.next();
      expect(log.stages.at(-1)).toMatchObject({ stage: "Compose Pull", success: false });
      expect(log.stages.at(-1).stderr).toContain("pull access denied");
      const finished = await stream.next();
      expect(finished.run).toMatchObject({ id: started.run.id, success: false });
      expect(finished.run.message).toContain("pull access denied");
    } finally {
      stream.close();
    }
  });

  it("shows a late subscriber the deploys still running, and replays nothing", async () => {
    komodo.faults.setStack("api", { updateDelayMs: 600 });
    const first = await openEventStream(`${app.url}/api/v0/deploy/events`, { cookie });
    await first.next();
    const answered = deploy("api", "redeploy", { cookie });
    const started = await first.next();
    const late = await openEventStream(`${app.url}/api/v0/deploy/events`, { "x-api-key": key });
    try {
      const subscribed = await late.next();
      expect(subscribed.type).toBe("subscribed");
      // By now the run may be on its first step.
      expect(subscribed.running).toEqual([{ ...started.run, step: subscribed.running[0]?.step }]);
      // Then the steps still to come, and its end.
      const later = [await late.next(3000)];
      while (later.at(-1).type !== "finished") later.push(await late.next(3000));
      const steps = ["take-down", "deploy"];
      const stepAtSubscribing = subscribed.running[0].step;
      const runEvents = later.filter((event) => event.type !== "log");
      expect(runEvents.map((event) => event.run.step ?? event.type)).toEqual([
        ...steps.slice(stepAtSubscribing ? steps.indexOf(stepAtSubscribing) + 1 : 0),
        "finished",
      ]);
      expect(runEvents.every((event) => event.run.id === started.run.id)).toBe(true);
      expect(
        later.filter((event) => event.type === "log").every((event) => event.runId === started.run.id),
      ).toBe(true);
      await answered;
    } finally {
      first.close();
      late.close();
      komodo.faults.setStack("api", { updateDelayMs: undefined });
    }
  });

  it("passes through the gateway while the stream stays open, for keys and sessions", async () => {
    const credentials: Array<Record<string, string>> = [{ "x-api-key": key }, { cookie }];
    for (const headers of credentials) {
      const stream = await openEventStream(`${gatewayUrl}/api/v0/deploy/events`, headers);
      try {
        expect((await stream.next()).type).toBe("subscribed");
        await deploy("web", "pull", headers);
        expect((await stream.next()).type).toBe("started");
        expect((await stream.next()).run.step).toBe("pull");
        expect((await stream.next()).type).toBe("log");
        expect((await stream.next()).type).toBe("finished");
        expect(stream.response.headers.get("x-content-type-options")).toBe("nosniff");
      } finally {
        stream.close();
      }
    }
  });

  it("writes the very frames oRPC's handler of the contract writes, for a late subscriber too", async () => {
    const streamText = async (response: Response) => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes('"type":"finished"')) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
      }
      await reader.cancel();
      return text;
    };
    komodo.faults.setStack("api", { updateDelayMs: 300 });
    const first = await openEventStream(`${app.url}/api/v0/deploy/events`, { cookie });
    try {
      await first.next();
      const answered = deploy("api", "pull", { cookie });
      // Once the run's step is known, so that both late subscribers find the same run in `subscribed`.
      let event = await first.next();
      while (!(event.type === "started" && event.run.step)) event = await first.next();
      // Over HTTP, the handler written for Node's response; a fetch without Node's response, oRPC's.
      const [written, orpc] = await Promise.all([
        fetch(`${app.url}/api/v0/deploy/events`, { headers: { "x-api-key": key } }).then(streamText),
        Promise.resolve(
          app.backend.app.fetch(
            new Request(`${app.url}/api/v0/deploy/events`, { headers: { "x-api-key": key } }),
          ),
        ).then(streamText),
      ]);
      await answered;
      expect(written).toMatch(/^: \n\nevent: message\ndata: \{"type":"subscribed","running":\[\{"id"/);
      expect(written).toBe(orpc);
    } finally {
      first.close();
      komodo.faults.setStack("api", { updateDelayMs: undefined });
    }
  });

  it("refuses a request without credentials as every endpoint does", async () => {
    const refused = await app.request("/api/v0/deploy/events");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.json).toEqual({
      code: "UNAUTHORIZED",
      status: 401,
      message: "Sign in, or send a valid API key in the x-api-key header",
    });
  });

  it("stops counting a subscriber once it disconnects", async () => {
    const listeners = () => app.backend.services.events.listenerCount();
    await expect.poll(listeners).toBe(0);
    const stream = await openEventStream(`${app.url}/api/v0/deploy/events`, { cookie });
    await stream.next();
    expect(listeners()).toBe(1);
    stream.close();
    await expect.poll(listeners).toBe(0);
  });
});
