// Answers what compose's health check asks of a Trivy server; scans never reach it (the stand-in
// client makes its report up).
import { createServer } from "node:http";

createServer((request, response) => {
  response.writeHead(request.url === "/healthz" ? 200 : 404, { "content-type": "text/plain" });
  response.end(request.url === "/healthz" ? "ok" : "not found");
}).listen(4954, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
