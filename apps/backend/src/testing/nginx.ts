import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stackgate/simulators";

/**
 * A private Debian nginx in front of a server of the test (the gateway or the backend), as
 * self-hosters put one: a reverse proxy with a short `proxy_read_timeout` that cuts a request held
 * open too long with 504, and unbuffered proxying so event streams pass as they are written.
 * `nginx -c <conf> -p <dir>` keeps its pid, logs and temporary files in a directory of its own.
 */

export const NGINX_BIN = process.env.NGINX_BIN ?? "/usr/sbin/nginx";
export const haveNginx = existsSync(NGINX_BIN);

/**
 * For the top of a test file: fails in CI without nginx (CI never skips these tests), otherwise
 * warns loudly once; returns whether nginx is there, for `describe.skipIf(!requireNginx())`.
 */
export function requireNginx(): boolean {
  if (haveNginx) return true;
  if (process.env.CI === "true") {
    throw new Error(`No nginx at ${NGINX_BIN}: CI never skips this test (apt-get install -y nginx-light)`);
  }
  const line = "!".repeat(78);
  console.warn(
    `${line}\n!! NGINX TESTS SKIPPED: no ${NGINX_BIN}\n` +
      `!! Install it (apt-get install -y nginx-light) or set NGINX_BIN. CI always has one.\n${line}`,
  );
  return false;
}

export interface NginxOptions {
  /** Where nginx sends every request, e.g. the gateway's `http://127.0.0.1:<port>`. */
  upstream: string;
  /** nginx's `proxy_read_timeout`: a response silent for this long is cut (504 before its headers). */
  readTimeoutSeconds?: number;
  /**
   * How long a reload lets the old workers finish what they serve; then their connections are cut,
   * as a reload under load or a restart does to an open event stream.
   */
  shutdownTimeoutSeconds?: number;
}

export interface Nginx {
  /** nginx's own address, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Reloads the configuration (SIGHUP) and resolves once the new workers serve. */
  reload(): Promise<void>;
  /** nginx's access and error logs so far, for a failing test to show. */
  logs(): { access: string; error: string };
  /** Stops nginx and its workers and removes its directory. */
  stop(): Promise<void>;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

function configuration(
  dir: string,
  port: number,
  { upstream, readTimeoutSeconds = 5, shutdownTimeoutSeconds = 1 }: NginxOptions,
) {
  const target = new URL(upstream);
  return `
daemon off;
master_process on;
worker_processes 1;
worker_shutdown_timeout ${shutdownTimeoutSeconds}s;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
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
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_read_timeout ${readTimeoutSeconds}s;
      proxy_buffering off;
    }
  }
}
`;
}

/** Starts nginx in front of `upstream` and resolves once it accepts connections. */
export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), "stackgate-nginx-"));
  mkdirSync(join(dir, "tmp"));
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, configuration(dir, port, options));
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name), "utf8");
    } catch {
      return "";
    }
  };
  const logs = () => ({ access: read("access.log"), error: read("error.log") });

  // Its own process group, so that stopping it also ends its workers, whatever happened to the master.
  const child: ChildProcess = spawn(NGINX_BIN, ["-c", conf, "-p", dir], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stopGroup = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
      const killed = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }, 3000);
      await exited;
      clearTimeout(killed);
    }
  };

  const startedBy = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > startedBy) {
      await stopGroup();
      const why = `${stderr}${logs().error}`;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start on port ${port}: ${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  return {
    url: `http://127.0.0.1:${port}`,
    logs,
    async reload() {
      const before = logs().error.length;
      if (child.pid === undefined) throw new Error("nginx is not running");
      process.kill(child.pid, "SIGHUP");
      // The master logs the new workers' start once the new configuration is in place.
      const until = Date.now() + 10_000;
      while (!/start worker process/.test(logs().error.slice(before))) {
        if (Date.now() > until) throw new Error(`nginx did not reload: ${logs().error.slice(before)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async stop() {
      await stopGroup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
