// Runs the ntfy receiver and prints every alert it gets (for the demo):
//   npx node packages/simulators/src/ntfy/cli.ts [--port 8090] [--host 127.0.0.1]
//     [--token tk_…] [--mode ok|unauthorized|forbidden|slow|error] [--slow-ms 10000]

import { parseArgs } from "node:util";
import { type NtfyReceiverMode, type ReceivedRequest, startNtfyReceiver } from "./receiver.ts";

const MODES: readonly NtfyReceiverMode[] = ["ok", "unauthorized", "forbidden", "slow", "error"];

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8090" },
    host: { type: "string", default: "127.0.0.1" },
    token: { type: "string" },
    mode: { type: "string", default: "ok" },
    "slow-ms": { type: "string", default: "10000" },
  },
});

const mode = values.mode as NtfyReceiverMode;
if (!MODES.includes(mode)) {
  console.error(`--mode must be one of ${MODES.join(", ")}`);
  process.exit(2);
}

const receiver = await startNtfyReceiver({
  host: values.host,
  port: Number(values.port),
  token: values.token,
  mode,
  slowMs: Number(values["slow-ms"]),
  onRequest: printRequest,
});
console.log(
  `ntfy receiver listening on ${receiver.url} (mode ${mode}${values.token ? ", token required" : ""})`,
);

function printRequest(request: ReceivedRequest): void {
  const time = new Date(request.receivedAt).toLocaleTimeString();
  const message = request.published;
  if (!message) {
    console.log(`[${time}] ${request.method} ${request.url} → ${request.status} (not published)`);
    return;
  }
  const details = [
    message.priority !== undefined ? `priority ${message.priority}` : "",
    message.tags ? `tags ${message.tags.join(",")}` : "",
  ].filter(Boolean);
  console.log(`[${time}] ${message.topic}${details.length > 0 ? ` (${details.join(", ")})` : ""}`);
  if (message.title) console.log(`  ${message.title}`);
  for (const line of message.message.split("\n")) console.log(`  ${line}`);
  if (message.click) console.log(`  → ${message.click}`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    receiver.close().then(() => process.exit(0));
  });
}
