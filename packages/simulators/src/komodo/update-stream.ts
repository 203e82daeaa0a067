import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Types } from "komodo_client";
import { type WebSocket, WebSocketServer } from "ws";
import type { ServerFaults } from "./faults.ts";
import { isPlainObject } from "./updates.ts";

export const UPDATE_STREAM_PATH = "/ws/update";

/** What a test controls of the stream (`sim.updateStream`). */
export interface UpdateStreamControl {
  /** Sockets logged in right now. */
  readonly loggedIn: number;
  /** Resolves once a socket is logged in (at once if one is). */
  whenLoggedIn(): Promise<void>;
  /** Ends every socket abruptly, without a close frame, as a network drop or a restart would. */
  drop(): void;
}

export interface UpdateStreamOptions {
  credentials: { key: string; secret: string };
  faults: () => ServerFaults;
  /** Listens to every stored or changed Update; returns the function that stops listening. */
  subscribe: (listener: (item: Types.UpdateListItem) => void) => () => void;
  /** Whether the API user may read this target (Komodo sends only those to non-admins). */
  canRead: (target: Types.ResourceTarget) => boolean;
}

/**
 * Komodo Core's `/ws/update` (bin/core/src/ws/update.rs): the client's first message logs in
 * (`{"type":"ApiKeys","params":{key,secret}}`), Core answers the text `LOGGED_IN`, then sends one
 * text message, an `UpdateListItem`, for every stored or changed Update the user may read. Before
 * each message it checks the user again: a revoked key gets `INVALID_USER` and a close.
 */
export function createUpdateStream(options: UpdateStreamOptions) {
  const server = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const open = new Set<WebSocket>();
  const subscribers = new Set<WebSocket>();
  let loginWaiters: (() => void)[] = [];

  const stopListening = options.subscribe((item) => {
    if (subscribers.size === 0) return;
    const refused = options.faults().badCredentials ?? false;
    const message = JSON.stringify(item);
    for (const socket of subscribers) {
      if (refused) {
        subscribers.delete(socket);
        socket.send(JSON.stringify({ type: "INVALID_USER", msg: "user not found or not enabled" }));
        socket.close();
      } else if (options.canRead(item.target)) {
        socket.send(message);
      }
    }
  });

  function logIn(socket: WebSocket, data: string): void {
    const login = parseLogin(data);
    if (typeof login === "string") {
      socket.send(`failed to parse login message: ${login}`);
      socket.close();
      return;
    }
    const accepted =
      login.type === "ApiKeys" &&
      !options.faults().badCredentials &&
      !options.faults().refuseUpdateLogin &&
      login.key.trim() === options.credentials.key &&
      login.secret.trim() === options.credentials.secret;
    if (!accepted) {
      const how = login.type === "ApiKeys" ? "api keys" : "jwt";
      const why = login.type === "ApiKeys" ? "Invalid user credentials" : "failed to decode jwt";
      socket.send(`failed to authenticate user using ${how} | ${why}`);
      socket.close();
      return;
    }
    socket.send("LOGGED_IN");
    subscribers.add(socket);
    for (const wake of loginWaiters) wake();
    loginWaiters = [];
  }

  function accept(socket: WebSocket): void {
    open.add(socket);
    socket.once("message", (data, isBinary) => {
      // Core reads the login as text; anything else does not parse.
      logIn(socket, isBinary ? "" : data.toString());
    });
    socket.on("close", () => {
      open.delete(socket);
      subscribers.delete(socket);
    });
    socket.on("error", () => socket.terminate());
  }

  return {
    /** Takes an upgrade request for `/ws/update`; false when the request is for another path. */
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      if (new URL(request.url ?? "/", "http://simulator").pathname !== UPDATE_STREAM_PATH) return false;
      if (options.faults().refuseUpdateStream) {
        const body = "Connection header did not include 'upgrade'";
        socket.end(
          `HTTP/1.1 426 Upgrade Required\r\ncontent-type: text/plain; charset=utf-8\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
        return true;
      }
      server.handleUpgrade(request, socket, head, accept);
      return true;
    },

    control: {
      get loggedIn() {
        return subscribers.size;
      },
      whenLoggedIn() {
        if (subscribers.size > 0) return Promise.resolve();
        return new Promise<void>((resolve) => loginWaiters.push(resolve));
      },
      drop() {
        for (const socket of open) socket.terminate();
      },
    } satisfies UpdateStreamControl,

    close(): void {
      stopListening();
      for (const socket of open) socket.terminate();
      server.close();
    },
  };
}

type Login = { type: "ApiKeys"; key: string; secret: string } | { type: "Jwt"; jwt: string };

/** The login message as serde reads it, or the reason it does not parse. */
function parseLogin(data: string): Login | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return "expected value at line 1 column 1";
  }
  if (!isPlainObject(value)) return "invalid type: expected internally tagged enum WsLoginMessage";
  const params = value.params;
  if (value.type === "ApiKeys") {
    if (!isPlainObject(params) || typeof params.key !== "string" || typeof params.secret !== "string") {
      return "missing field `key` or `secret`";
    }
    return { type: "ApiKeys", key: params.key, secret: params.secret };
  }
  if (value.type === "Jwt") {
    if (!isPlainObject(params) || typeof params.jwt !== "string") return "missing field `jwt`";
    return { type: "Jwt", jwt: params.jwt };
  }
  return typeof value.type === "string"
    ? `unknown variant \`${value.type}\`, expected \`Jwt\` or \`ApiKeys\``
    : "missing field `type`";
}
