import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layoutOf, root, stackgateProcesses } from "./stackgate.ts";

describe("what npm start runs (STACKGATE_PROCESSES)", () => {
  it("runs the whole service as one process by default, its frontend build and port handed over", () => {
    const env: NodeJS.ProcessEnv = { PORT: "9090" };
    expect(layoutOf(env)).toBe("one");
    const [only, ...others] = stackgateProcesses(env);
    expect(others).toEqual([]);
    expect(only!.name).toBe("stackgate");
    expect(only!.args.at(-1)).toBe(join(root, "dist/bundle/backend/stackgate.mjs"));
    expect(only!.env).toMatchObject({
      PORT: "9090",
      APP_URL: "http://localhost:9090",
      STACKGATE_FRONTEND_ENTRY: join(root, "dist/frontend/server/entry.mjs"),
      MALLOC_ARENA_MAX: "2",
    });
  });

  it("runs gateway, backend and frontend as processes of their own with split", () => {
    const env: NodeJS.ProcessEnv = { STACKGATE_PROCESSES: "split" };
    expect(layoutOf(env)).toBe("split");
    expect(stackgateProcesses(env).map((spec) => spec.name)).toEqual(["backend", "frontend", "gateway"]);
  });

  it("refuses any other value with one line and exit 78", () => {
    const result = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { layoutOf } from ${JSON.stringify(join(root, "scripts/stackgate.ts"))}; layoutOf();`,
      ],
      { env: { PATH: process.env.PATH, STACKGATE_PROCESSES: "three" }, encoding: "utf8" },
    );
    expect(result.status).toBe(78);
    expect(result.stderr.trim()).toBe(
      'Stackgate cannot start: STACKGATE_PROCESSES is "three": set it to one (the whole service in one process) or split (gateway, backend and dashboard as processes of their own), or unset it.',
    );
  });
});
