import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", "./scripts/summary-reporter.ts"],
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "apps/backend/src/**/*.test.ts",
            "apps/gateway/src/**/*.test.ts",
            "packages/*/src/**/*.test.ts",
            "scripts/**/*.test.ts",
            "apps/frontend/src/**/*.test.ts",
          ],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["apps/frontend/e2e/**/*.e2e.ts"],
          environment: "node",
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
