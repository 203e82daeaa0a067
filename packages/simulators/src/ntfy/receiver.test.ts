import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type NtfyReceiver, startNtfyReceiver } from "./receiver.ts";

// Bodies from shared/fixtures/ntfy/ntfy-error-responses.json (ntfy v2.13.0).
const UNAUTHORIZED =
  '{"code":40101,"http":401,"error":"unauthorized","link":"https://ntfy.sh/docs/publish/#authentication"}\n';
const FORBIDDEN =
  '{"code":40301,"http":403,"error":"forbidden","link":"https://ntfy.sh/docs/publish/#authentication"}\n';
const TOPIC_DISALLOWED = '{"code":40010,"http":400,"error":"invalid request: topic name is not allowed"}\n';

let ntfy: NtfyReceiver;
afterEach(() => ntfy.close());

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${ntfy.url}${path}`, { method: "POST", body, headers });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describe("ntfy receiver without auth", () => {
  beforeEach(async () => {
    ntfy = await startNtfyReceiver();
  });

  it("answers a JSON publish like ntfy and records it", async () => {
    const response = await post(
      "/",
      JSON.stringify({
        topic: "image-scans",
        title: "2 CRITICAL",
        message: "CRITICAL: 2",
        priority: 5,
        tags: ["warning"],
        click: "https://x.example/1",
        markdown: true,
      }),
    );

    expect(response.status).toBe(200);
    expect(response.type).toBe("application/json");
    const answer = JSON.parse(response.text);
    expect(Object.keys(answer)).toEqual([
      "id",
      "time",
      "expires",
      "event",
      "topic",
      "title",
      "message",
      "priority",
      "tags",
      "click",
      "content_type",
    ]);
    expect(answer).toMatchObject({
      event: "message",
      topic: "image-scans",
      title: "2 CRITICAL",
      priority: 5,
      content_type: "text/markdown",
    });
    expect(answer.id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(answer.expires - answer.time).toBe(43_200);
    expect(ntfy.published).toHaveLength(1);
    expect(ntfy.published[0]).toMatchObject({
      ...answer,
      request: { method: "POST", url: "/", status: 200 },
    });
  });

  it("takes a plain publish to /<topic> with ntfy's headers and query parameters", async () => {
    // The UTF-8 bytes of the title as they travel in a header (fetch wants them as Latin-1 characters).
    const title = Buffer.from("Señal ✓").toString("latin1");
    const response = await post("/alerts?tags=a,b", "disk full", { Title: title, "X-Priority": "high" });

    expect(response.status).toBe(200);
    expect(ntfy.published[0]).toMatchObject({
      topic: "alerts",
      title: "Señal ✓",
      message: "disk full",
      priority: 4,
      tags: ["a", "b"],
    });
  });

  it("turns an empty message into 'triggered' and leaves out fields nobody set", async () => {
    const answer = JSON.parse((await post("/", JSON.stringify({ topic: "alerts" }))).text);
    expect(Object.keys(answer)).toEqual(["id", "time", "expires", "event", "topic", "message"]);
    expect(answer.message).toBe("triggered");
  });

  it.each([
    ["a reserved topic", "/", JSON.stringify({ topic: "v1", message: "x" }), 400, TOPIC_DISALLOWED],
    [
      "an invalid topic",
      "/",
      JSON.stringify({ topic: "no spaces", message: "x" }),
      400,
      '{"code":40009,"http":400,"error":"invalid request: topic invalid"}\n',
    ],
    [
      "a priority out of range",
      "/",
      JSON.stringify({ topic: "alerts", priority: 6 }),
      400,
      '{"code":40007,"http":400,"error":"invalid priority parameter","link":"https://ntfy.sh/docs/publish/#message-priority"}\n',
    ],
    [
      "a priority that is not a number",
      "/",
      JSON.stringify({ topic: "alerts", priority: "high" }),
      400,
      '{"code":40024,"http":400,"error":"invalid request: request body must be valid JSON"}\n',
    ],
    [
      "a broken JSON body",
      "/",
      "{",
      400,
      '{"code":40024,"http":400,"error":"invalid request: request body must be valid JSON"}\n',
    ],
    [
      "a message over 4096 bytes",
      "/",
      JSON.stringify({ topic: "alerts", message: "x".repeat(4097) }),
      400,
      '{"code":40014,"http":400,"error":"invalid request: attachments not allowed","link":"https://ntfy.sh/docs/config/#attachments"}\n',
    ],
    [
      "a JSON body over 8192 bytes",
      "/",
      JSON.stringify({ topic: "alerts", message: "\u0001".repeat(2000) }),
      413,
      '{"code":41303,"http":413,"error":"JSON body too large"}\n',
    ],
  ])("refuses %s like ntfy", async (_label, path, body, status, answer) => {
    const response = await post(path, body);
    expect(response).toEqual({ status, type: "application/json", text: answer });
    expect(ntfy.published).toEqual([]);
    expect(ntfy.requests).toHaveLength(1);
  });

  it("refuses an invalid priority header", async () => {
    expect((await post("/alerts", "x", { "X-Priority": "7" })).status).toBe(400);
  });

  it("answers the health check", async () => {
    const response = await fetch(`${ntfy.url}/v1/health`);
    expect(await response.json()).toEqual({ healthy: true });
  });

  it("switches modes at run time", async () => {
    ntfy.setMode("error");
    expect(await post("/alerts", "x")).toMatchObject({
      status: 500,
      text: '{"code":50001,"http":500,"error":"internal server error"}\n',
    });
    ntfy.setMode("unauthorized");
    expect(await post("/alerts", "x")).toMatchObject({ status: 401, text: UNAUTHORIZED });
    ntfy.setMode("forbidden");
    expect(await post("/alerts", "x")).toMatchObject({ status: 403, text: FORBIDDEN });
    ntfy.setMode("slow", { slowMs: 200 });
    const started = performance.now();
    expect(await post("/alerts", "x")).toMatchObject({ status: 200 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(ntfy.requests.map((request) => request.status)).toEqual([500, 401, 403, 200]);
  });
});

describe("ntfy receiver with a token", () => {
  beforeEach(async () => {
    ntfy = await startNtfyReceiver({ token: "tk_right" });
  });

  it("accepts the right bearer token", async () => {
    expect((await post("/alerts", "x", { Authorization: "Bearer tk_right" })).status).toBe(200);
  });

  it("answers a wrong token with 401 and keeps the header it got", async () => {
    expect(await post("/alerts", "x", { Authorization: "Bearer tk_wrong" })).toEqual({
      status: 401,
      type: "application/json",
      text: UNAUTHORIZED,
    });
    expect(ntfy.requests[0].headers.authorization).toBe("Bearer tk_wrong");
  });

  it("answers a missing token with 403", async () => {
    expect(await post("/alerts", "x")).toMatchObject({ status: 403, text: FORBIDDEN });
  });
});
