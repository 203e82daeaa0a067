/**
 * The control for bench/gateway-streams.ts: an HTTP server that does nothing but hold event streams
 * and, on `POST /api/v0/deploy`, write one frame of `FRAME_BYTES` to every stream at once (then a
 * `finished` frame). What it measures is the machine's own cost of writing to thousands of loopback
 * sockets with one Node thread, with the bench's client reading them on the same cores.
 * `PORT` is where it listens.
 */
import { createServer, type ServerResponse } from "node:http";

const frameBytes = Number(process.env.FRAME_BYTES ?? 1024);
const frame = (type: string) => {
  const head = `event: message\ndata: {"type":"${type}","pad":"`;
  const tail = '"}\n\n';
  return head + "x".repeat(Math.max(0, frameBytes - head.length - tail.length)) + tail;
};
const streams = new Set<ServerResponse>();

createServer((request, response) => {
  if (request.method === "GET" && request.url === "/api/v0/deploy/events") {
    response.useChunkedEncodingByDefault = false;
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(': \n\nevent: message\ndata: {"type":"subscribed","running":[]}\n\n');
    streams.add(response);
    response.once("close", () => streams.delete(response));
    return;
  }
  if (request.method === "POST" && request.url === "/api/v0/deploy") {
    request.resume();
    request.once("end", () => {
      const started = frame("started");
      for (const stream of streams) stream.write(started);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
      setTimeout(() => {
        const finished = frame("finished");
        for (const stream of streams) stream.write(finished);
      }, 50);
    });
    return;
  }
  response.writeHead(request.url === "/health" ? 200 : 404).end();
}).listen(Number(process.env.PORT), "127.0.0.1");
