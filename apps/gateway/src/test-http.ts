/** For the gateway's tests: a gateway of their own on a free port, and HTTP as browsers send it. */
import { type IncomingHttpHeaders, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createGateway, type GatewayOptions } from "./gateway.ts";

/** Listens on a free loopback port and resolves with the server's origin. */
export async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs `use` against a gateway of its own, closed afterwards with all its connections. */
export async function withOwnGateway(
  options: GatewayOptions,
  use: (url: string, gateway: Server) => Promise<void>,
) {
  const gateway = createGateway(options);
  const url = await listen(gateway);
  try {
    await use(url, gateway);
  } finally {
    gateway.closeAllConnections();
    gateway.close();
  }
}

/** Resolves with the answer as soon as its head is in: event streams stay open. */
export function open(
  url: string,
  {
    method = "GET",
    headers = {},
    localAddress,
  }: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(url, { method, headers, localAddress, agent: false }, resolve);
    outgoing.on("error", reject);
    outgoing.end(method === "POST" ? "{}" : undefined);
  });
}

/** A GET (or HEAD) as a browser sends it, with the raw (still encoded) body. */
export function rawGet(url: string, acceptEncoding?: string, method = "GET") {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const call = request(
      url,
      { method, headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    call.on("error", reject);
    call.end();
  });
}

/** The body of a `rawGet` answer, decompressed as its content-encoding says. */
export function decoded({ headers, body }: { headers: IncomingHttpHeaders; body: Buffer }): string {
  if (headers["content-encoding"] === "br") return brotliDecompressSync(body).toString("utf8");
  if (headers["content-encoding"] === "gzip") return gunzipSync(body).toString("utf8");
  return body.toString("utf8");
}
