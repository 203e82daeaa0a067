/**
 * Test set-up through Stackgate's own API, as a person would do it in Settings (that page is tested on
 * its own) or a pipeline with its key: connect a Komodo simulator, create an API key, deploy; plus past
 * history rows for the 30-day chart. Every browser test sets its scene through these.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { adminSession } from "./browser.ts";
import type { Stackgate } from "./harness.ts";

async function cookieHeader(stackgate: Stackgate): Promise<string> {
  return (await adminSession(stackgate)).map(({ name, value }) => `${name}=${value}`).join("; ");
}

/** A JSON request with the admin's session, from the dashboard's origin (the API refuses other sites). */
export async function callAsAdmin(stackgate: Stackgate, method: string, path: string, body?: unknown) {
  const response = await fetch(`${stackgate.baseUrl}${path}`, {
    method,
    headers: {
      cookie: await cookieHeader(stackgate),
      origin: stackgate.baseUrl,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, ok: response.ok, body: text ? JSON.parse(text) : null };
}

/** `callAsAdmin` for set-up steps: the answer's body, or an error naming the status. */
export async function adminRequest(stackgate: Stackgate, method: string, path: string, body?: unknown) {
  const answer = await callAsAdmin(stackgate, method, path, body);
  if (!answer.ok)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export async function connectKomodo(
  stackgate: Stackgate,
  komodo: { url: string; key: string; secret: string },
) {
  await adminRequest(stackgate, "POST", "/api/v0/deploy/credentials", {
    name: "simulated komodo",
    url: komodo.url,
    key: komodo.key,
    secret: komodo.secret,
  });
}

export async function disconnectKomodo(stackgate: Stackgate) {
  await adminRequest(stackgate, "DELETE", "/api/v0/deploy/credentials", { name: "simulated komodo" });
}

export async function createApiKey(stackgate: Stackgate, name: string): Promise<string> {
  const created = (await adminRequest(stackgate, "POST", "/api/v0/apikeys", { name })) as { key: string };
  return created.key;
}

/** A request as a pipeline sends it, with an API key. */
export function requestWithKey(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The status of a pipeline's request (its body is dropped). */
export async function callWithKey(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const response = await requestWithKey(baseUrl, key, method, path, body);
  await response.body?.cancel();
  return response.status;
}

/** A deploy from outside the dashboard, as a pipeline sends it. */
export function deployWithKey(stackgate: Stackgate, key: string, stack: string, action: string) {
  return requestWithKey(stackgate.baseUrl, key, "POST", "/api/v0/deploy", { stack, action });
}

export interface PastDeploy {
  daysAgo: number;
  stack: string;
  success: boolean;
  message?: string;
  actor?: string;
}

/**
 * History rows dated in the past, written straight into the backend's database: the API can only
 * record deploys now, and the 30-day chart needs days. The backend reads the table on every request.
 */
export function seedPastDeploys(stackgate: Stackgate, deploys: readonly PastDeploy[]) {
  const database = new Sqlite(join(stackgate.dataDir, "db.sqlite"));
  try {
    database.pragma("busy_timeout = 5000");
    const insert = database.prepare(
      `INSERT INTO deploy_history (id, created_at, started_at, actor, via, user_id, stack, action, success, message)
       VALUES (?, ?, ?, ?, ?, NULL, ?, 'redeploy', ?, ?)`,
    );
    const now = Date.now();
    for (const deploy of deploys) {
      const at = now - deploy.daysAgo * 86_400_000;
      const actor = deploy.actor ?? "API Key: ci-pipeline";
      insert.run(
        randomUUID(),
        at,
        at - 20_000,
        actor,
        actor.startsWith("API Key:") ? "apiKey" : "session",
        deploy.stack,
        deploy.success ? 1 : 0,
        deploy.message ?? (deploy.success ? `Acción 'redeploy' completada para '${deploy.stack}'` : "failed"),
      );
    }
  } finally {
    database.close();
  }
}
