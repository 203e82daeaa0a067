import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** The most bytes one answer may have: thousands of stacks fit, and a hostile server cannot exhaust memory. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** An answer longer than the limit: reading stopped and its connection was closed. */
export class AnswerTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes`);
    this.name = "AnswerTooLargeError";
    this.limitBytes = limitBytes;
  }
}

export interface TransportResponse {
  status: number;
  location: string | undefined;
  text: string;
}

export interface Transport {
  /** POSTs a JSON body; resolves with the answer, whatever its status. Redirects are never followed. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<TransportResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/**
 * HTTP/1.1 over kept-alive connections, on `node:http`. The client was first built on `fetch`; under
 * a burst of deploys, fetch (undici and its web streams) was the backend's largest cost, about three
 * times what `node:http` costs per call (bench/RESULTS.md). An idle connection is dropped after
 * `idleMs`, before a server with Node's default keep-alive (5 s) would close it under a request.
 */
export function createTransport(
  secure: boolean,
  { idleMs = 4_000, maxAnswerBytes = MAX_ANSWER_BYTES }: { idleMs?: number; maxAnswerBytes?: number } = {},
): Transport {
  const options = { keepAlive: true, maxSockets: 256, timeout: idleMs };
  const agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
  const send = secure ? httpsRequest : httpRequest;

  return {
    post(url, headers, body, signal) {
      return new Promise((resolve, reject) => {
        const outgoing = send(
          url,
          {
            method: "POST",
            agent,
            signal,
            headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
          },
          (response) => readAll(response, maxAnswerBytes).then(resolve, reject),
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Reads the whole answer, or stops at `maxBytes` and destroys the connection (it is not reused). */
function readAll(response: IncomingMessage, maxBytes: number): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      response.destroy();
      reject(new AnswerTooLargeError(maxBytes));
    };
    if (Number(response.headers["content-length"]) > maxBytes) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return tooLarge();
      chunks.push(chunk);
    });
    response.on("error", reject);
    response.on("end", () => {
      // A connection that broke mid-answer ends the body early: not an answer to use.
      if (!response.complete) return reject(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      resolve({
        status: response.statusCode ?? 0,
        location: response.headers.location,
        text: Buffer.concat(chunks).toString("utf8"),
      });
    });
  });
}
