import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { type NtfyReceiver, startNtfyReceiver } from "@stackgate/simulators/ntfy/receiver.ts";
import { afterEach, describe, expect, it } from "vitest";
import { type NtfyPublishResult, publishToNtfy, truncateUtf8 } from "./ntfy-publisher.ts";

// A token that must never show up in any error text.
const CANARY_TOKEN = "tk_canary0000000000000000000000";
const alert = {
  title: "Deploy failed: redeploy of shop",
  message: "Komodo said: stack is busy",
  priority: 4 as const,
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function receiver(options: Parameters<typeof startNtfyReceiver>[0] = {}): Promise<NtfyReceiver> {
  const started = await startNtfyReceiver(options);
  cleanups.push(() => started.close());
  return started;
}

/** A plain HTTP server for answers no ntfy gives. */
async function otherServer(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function expectFailureWithoutToken(result: NtfyPublishResult): string {
  expect(result.ok).toBe(false);
  const error = result.ok ? "" : result.error;
  expect(error).not.toContain(CANARY_TOKEN);
  expect(error).not.toContain("canary");
  return error;
}

describe("publishToNtfy", () => {
  it("publishes JSON to the server root with the bearer token", async () => {
    const ntfy = await receiver({ token: CANARY_TOKEN });

    const result = await publishToNtfy(
      { url: ntfy.url, topic: "stackgate-alerts", token: CANARY_TOKEN },
      { ...alert, tags: ["rotating_light", "shop"], click: "https://stackgate.example/history" },
    );

    expect(result).toEqual({ ok: true, status: 200, id: ntfy.published[0].id });
    expect(ntfy.published[0].id).toMatch(/^[A-Za-z0-9]{12}$/);
    const [request] = ntfy.requests;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/");
    expect(request.headers.authorization).toBe(`Bearer ${CANARY_TOKEN}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request.body)).toEqual({
      topic: "stackgate-alerts",
      title: alert.title,
      priority: 4,
      tags: ["rotating_light", "shop"],
      click: "https://stackgate.example/history",
      message: alert.message,
    });
  });

  it("accepts a server URL with trailing slashes and sends no Authorization without a token", async () => {
    const ntfy = await receiver();

    const result = await publishToNtfy(
      { url: `${ntfy.url}//`, topic: "alerts" },
      { title: "Título ✓", message: "ok" },
    );

    expect(result.ok).toBe(true);
    expect(ntfy.requests[0].url).toBe("/");
    expect(ntfy.requests[0].headers.authorization).toBeUndefined();
    expect(ntfy.published[0].title).toBe("Título ✓");
  });

  it("reports a rejected token as 401 without repeating it", async () => {
    const ntfy = await receiver({ token: "tk_theRightOne00000000000000000" });

    const result = await publishToNtfy({ url: ntfy.url, topic: "alerts", token: CANARY_TOKEN }, alert);

    expect(expectFailureWithoutToken(result)).toBe("ntfy answered 401 unauthorized");
    expect(result).toMatchObject({ status: 401 });
    expect(ntfy.requests[0].headers.authorization).toBe(`Bearer ${CANARY_TOKEN}`);
  });

  it.each([
    ["forbidden", 403, "ntfy answered 403 forbidden"],
    ["error", 500, "ntfy answered 500 internal server error"],
  ] as const)("reports the %s answer", async (mode, status, error) => {
    const ntfy = await receiver({ mode });
    const result = await publishToNtfy({ url: ntfy.url, topic: "alerts", token: CANARY_TOKEN }, alert);
    expect(expectFailureWithoutToken(result)).toBe(error);
    expect(result).toMatchObject({ status });
  });

  it("gives up on a slow server at the time limit", async () => {
    const ntfy = await receiver({ mode: "slow", slowMs: 5000 });

    const started = performance.now();
    const result = await publishToNtfy({ url: ntfy.url, topic: "alerts", token: CANARY_TOKEN }, alert, {
      timeoutMs: 300,
    });
    const elapsed = performance.now() - started;

    expect(expectFailureWithoutToken(result)).toBe("ntfy did not answer within 0.3 s");
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    expect(ntfy.requests).toHaveLength(1);
  });

  it("reports an unreachable server", async () => {
    const closed = await startNtfyReceiver();
    await closed.close();

    const result = await publishToNtfy({ url: closed.url, topic: "alerts", token: CANARY_TOKEN }, alert);

    expect(expectFailureWithoutToken(result)).toBe(
      `ntfy at ${closed.url} is unreachable: connection refused`,
    );
    expect(result).not.toHaveProperty("status");
  });

  it.each([
    ["not a URL", "ntfy.example.com", "the ntfy server URL is not a valid URL"],
    ["another scheme", "ftp://ntfy.example.com", "the ntfy server URL must start with http:// or https://"],
    [
      "credentials in the URL",
      `https://user:${CANARY_TOKEN}@ntfy.example.com`,
      "the ntfy server URL must not contain a user name or password; use a token",
    ],
  ])("refuses %s before sending", async (_label, url, error) => {
    const result = await publishToNtfy({ url, topic: "alerts", token: CANARY_TOKEN }, alert);
    expect(expectFailureWithoutToken(result)).toBe(error);
  });

  it("shortens a long message to ntfy's 4096 bytes without splitting a character", async () => {
    const ntfy = await receiver();
    const message = `Deploy log: ${"añadido ✓ 🚀 ".repeat(600)}`;
    expect(Buffer.byteLength(message)).toBeGreaterThan(8000);

    const result = await publishToNtfy({ url: ntfy.url, topic: "alerts" }, { title: "t", message });

    expect(result.ok).toBe(true);
    const received = ntfy.published[0].message;
    expect(Buffer.byteLength(received)).toBeLessThanOrEqual(4096);
    expect(Buffer.byteLength(received)).toBeGreaterThan(4090);
    expect(received.endsWith("…")).toBe(true);
    expect(message.startsWith(received.slice(0, -1))).toBe(true);
  });

  it("keeps the JSON body within ntfy's limit when escapes inflate it", async () => {
    const ntfy = await receiver();
    const message = `"quoted"\n${"\u0001".repeat(3000)}`;

    const result = await publishToNtfy({ url: ntfy.url, topic: "alerts" }, { title: "t", message });

    expect(result.ok).toBe(true);
    expect(Buffer.byteLength(ntfy.requests[0].body)).toBeLessThanOrEqual(8192);
    expect(Buffer.byteLength(ntfy.requests[0].body)).toBeGreaterThan(8100);
    expect(ntfy.published[0].message.endsWith("…")).toBe(true);
  });

  it("does not follow a redirect, which would turn the publish into a GET", async () => {
    let requests = 0;
    const url = await otherServer((_request, response) => {
      requests += 1;
      response.writeHead(301, { Location: "https://ntfy.example.com/" }).end();
    });

    const result = await publishToNtfy({ url, topic: "alerts", token: CANARY_TOKEN }, alert);

    expect(expectFailureWithoutToken(result)).toBe(
      "ntfy answered 301 redirect to https://ntfy.example.com/; use the final address as the server URL",
    );
    expect(requests).toBe(1);
  });

  it("does not take a 200 from some other web server for a delivery", async () => {
    const url = await otherServer((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/html" }).end("<html>welcome</html>");
    });

    const result = await publishToNtfy({ url, topic: "alerts", token: CANARY_TOKEN }, alert);

    expect(expectFailureWithoutToken(result)).toBe(
      `the server at ${url} answered 200 but not like ntfy (no message id)`,
    );
  });

  it("refuses a token that cannot travel in a header, without echoing it", async () => {
    const result = await publishToNtfy(
      { url: "http://127.0.0.1:9", topic: "alerts", token: `${CANARY_TOKEN}\n` },
      alert,
    );
    expect(expectFailureWithoutToken(result)).toBe(
      "the ntfy token contains characters that cannot be sent in a header",
    );
  });
});

describe("truncateUtf8", () => {
  it("leaves short text alone and never splits a multi-byte character", () => {
    expect(truncateUtf8("hello", 5)).toBe("hello");
    expect(truncateUtf8("hello!", 5)).toBe("he…");
    // "€" is 3 bytes: 2 bytes left after the ellipsis cannot hold it.
    expect(truncateUtf8("€€€", 5)).toBe("…");
    // "🚀" is 4 bytes.
    expect(truncateUtf8("a🚀bcd", 8)).toBe("a🚀bcd");
    expect(truncateUtf8("a🚀bcd", 7)).toBe("a…");
    expect(truncateUtf8("a🚀bcde", 8)).toBe("a🚀…");
  });
});
