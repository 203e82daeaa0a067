// Debian's nginx (`apt-get install -y nginx-light`) in front of an upstream, as a self-hoster puts it in
// front of Stackgate, with a short read timeout: a request held open for longer gets nginx's 504, and an
// event stream quiet for longer is cut. `reload()` replaces its workers the way `nginx -s reload` does:
// the old worker ends its open connections (event streams included) within a second.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const NGINX_BIN = process.env.NGINX_BIN ?? "/usr/sbin/nginx";
export const nginxAvailable = existsSync(NGINX_BIN);

export interface NginxProxy {
  url: string;
  /** Replaces the workers (SIGHUP) and resolves once the new ones answer. */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

export async function startNginx({
  upstream,
  readTimeoutSeconds = 5,
}: {
  upstream: string;
  readTimeoutSeconds?: number;
}): Promise<NginxProxy> {
  const dir = mkdtempSync(join(tmpdir(), "stackgate-nginx-"));
  mkdirSync(join(dir, "tmp"));
  const port = await freePort();
  const target = new URL(upstream);
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_shutdown_timeout 1s;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${target.host};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout ${readTimeoutSeconds}s;
      proxy_buffering off;
    }
  }
}
`,
  );
  const master: ChildProcess = spawn(NGINX_BIN, ["-c", conf, "-p", dir], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  master.stderr?.on("data", (chunk) => {
    errors += chunk;
  });
  const exited = new Promise<void>((resolve) => master.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, () => `nginx did not start: ${errors}`);

  return {
    url,
    async reload() {
      master.kill("SIGHUP");
      // The new worker is up once the old one has been asked to go; give it a moment, then check.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await waitUntilAnswering(url, () => `nginx did not come back after a reload: ${errors}`);
    },
    async stop() {
      master.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAnswering(url: string, failure: () => string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(failure());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
