import type { ServerResponse } from "node:http";
import type { HostileAnswer } from "./faults.ts";

/** One 64 KiB piece of a streamed list, reused for every write: `{"x":1},` repeated. */
const PIECE = Buffer.from('{"x":1},'.repeat(8192));

/** Plays one hostile answer; resolves when it is sent or the client went away. */
export async function answerHostile(response: ServerResponse, answer: HostileAnswer): Promise<void> {
  if ("json" in answer) {
    const body = JSON.stringify(answer.json);
    response.writeHead(answer.status ?? 200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    response.end(body);
    return;
  }
  const total = "streamBytes" in answer ? answer.streamBytes : Number.POSITIVE_INFINITY;
  const declared = "streamBytes" in answer && answer.declareLength;
  response.writeHead(200, {
    "content-type": "application/json",
    ...(declared ? { "content-length": String(total) } : {}),
  });
  let sent = 0;
  while (sent < total && !response.destroyed) {
    const piece = sent === 0 ? Buffer.from("[") : PIECE.subarray(0, Math.min(PIECE.length, total - sent));
    sent += piece.length;
    if (!response.write(piece)) await drainedOrClosed(response);
  }
  if (!response.destroyed) response.end();
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}
