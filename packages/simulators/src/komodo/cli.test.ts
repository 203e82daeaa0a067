import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));

describe("Komodo simulator CLI", () => {
  it("prints its address and credentials, serves, and stops cleanly on SIGTERM", async () => {
    const child = spawn(process.execPath, [cli, "--port", "0", "--stacks", "3", "--key", "K_cli_K"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let output = "";
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        output += chunk;
        if (output.includes("stacks:")) break;
      }
      const url = /listening on (http:\/\/\S+)/.exec(output)![1];
      const secret = /secret: (\S+)/.exec(output)![1];
      expect(output).toContain("key:    K_cli_K");
      expect(secret).toMatch(/^S_[A-Za-z0-9]{40}_S$/);

      const response = await fetch(`${url}/read/ListStacks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "K_cli_K", "x-api-secret": secret },
        body: "{}",
      });
      expect(await response.json()).toHaveLength(3);

      const exited = once(child, "exit");
      child.kill("SIGTERM");
      expect((await exited)[0]).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
