import { z } from "zod";
import { isoDate, keyOrSession } from "./common.ts";
import { deployAction } from "./deploy.ts";

const tags = ["History"];

export const historyEntry = z.object({
  id: z.string(),
  createdAt: isoDate,
  actor: z.string().meta({ example: "API Key: deploy-web" }),
  via: z.enum(["session", "apiKey"]),
  stack: z.string(),
  action: deployAction,
  success: z.boolean(),
  message: z.string(),
});

const tally = { total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() };

export const historyProcedures = {
  list: keyOrSession({
    method: "GET",
    path: "/api/v0/history",
    tags,
    summary: "The last 100 actions, newest first",
  }).output(z.object({ history: z.array(historyEntry) })),
  overview: keyOrSession({
    method: "GET",
    path: "/api/v0/history/overview",
    tags,
    summary: "The last 30 days of deploys: totals, success rate, per day and per stack",
  }).output(
    z.object({
      since: isoDate,
      ...tally,
      successRate: z.number().min(0).max(1).nullable().meta({ description: "null when nothing ran" }),
      perDay: z.array(z.object({ date: z.string().meta({ example: "2026-11-22" }), ...tally })),
      perStack: z.array(z.object({ stack: z.string(), ...tally, lastAt: isoDate })),
      recentFailures: z.array(historyEntry),
    }),
  ),
};
