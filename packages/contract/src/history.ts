import { z } from "zod";
import { actedBy, isoDate, keyOrSession } from "./common.ts";
import { commitChange, deployAction, runSettle, serviceChange } from "./deploy.ts";
import { imageRef } from "./scans.ts";
import { stackName } from "./stacks.ts";

const tags = ["History"];

export const historyEntry = z.object({
  id: z.string(),
  createdAt: isoDate,
  actor: z.string().meta({ example: "API Key: deploy-web" }),
  via: z.enum(["session", "apiKey"]),
  by: actedBy,
  stack: z.string(),
  action: deployAction,
  success: z.boolean(),
  message: z.string(),
  changes: z.array(serviceChange).meta({
    description: "Each service's image before and after; empty when unknown (older entries, Komodo unread)",
  }),
  commit: commitChange.nullable(),
  settle: runSettle.nullable(),
});

/** The most entries one page holds, and the size of the default answer. */
export const HISTORY_PAGE_LIMIT = 100;

/** A place in the history, newest first: the entries after it are older than this entry. */
export interface HistoryPosition {
  createdAt: Date;
  id: string;
}

const CURSOR_TEXT = /^(\d{1,15}):([A-Za-z0-9_-]{1,64})$/;

/** The opaque cursor (base64url) of the page that follows `position`. */
export function encodeHistoryCursor({ createdAt, id }: HistoryPosition): string {
  return btoa(`${createdAt.getTime()}:${id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeHistoryCursor(cursor: string): HistoryPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,120}$/.test(cursor)) return undefined;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
  const [, time, id] = CURSOR_TEXT.exec(text) ?? [];
  return time && id ? { createdAt: new Date(Number(time)), id } : undefined;
}

export const historyCursor = z
  .string()
  .transform((cursor, context) => {
    const position = decodeHistoryCursor(cursor);
    if (!position) context.addIssue({ code: "custom", message: "cursor is not one this API gave out" });
    return position ?? z.NEVER;
  })
  .meta({
    description: "`nextCursor` of the previous page: this page holds the entries older than that page's last",
    example: "MTc5NTU4MTIzNzUxMzpiNmY2YzYyZA",
  });

export const historyFilters = z.strictObject({
  stack: stackName.optional().meta({ description: "Only the actions on this stack" }),
  actor: z
    .string()
    .min(1, "actor must not be empty")
    .max(200, "actor must be at most 200 characters")
    .optional()
    .meta({ description: "Only the actions of this caller, as in `actor`", example: "API Key: deploy-web" }),
  via: z
    .enum(["session", "apiKey"], { error: "via must be session or apiKey" })
    .optional()
    .meta({ description: "Only the actions of people (`session`) or only those of API keys (`apiKey`)" }),
  outcome: z
    .enum(["success", "failure"], { error: "outcome must be success or failure" })
    .optional()
    .meta({ description: "Only the actions that succeeded, or only those that failed" }),
  image: imageRef.optional().meta({
    description: "Only the deploys that changed what runs of this image (its digest before and after differ)",
    example: "nginx:1.27",
  }),
});

export type HistoryFilters = z.infer<typeof historyFilters>;

export const historyQuery = historyFilters.extend({
  cursor: historyCursor.optional(),
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(HISTORY_PAGE_LIMIT, `limit must be at most ${HISTORY_PAGE_LIMIT}`)
    .optional()
    .meta({
      description: `Entries per page, 1 to ${HISTORY_PAGE_LIMIT}; ${HISTORY_PAGE_LIMIT} when not given`,
    }),
});

const tally = {
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  unstable: z.number().int().meta({ description: "Of those that succeeded, how many did not stay up" }),
};

export const historyProcedures = {
  list: keyOrSession({
    permission: "read",
    keyScope: { read: "history" },
    method: "GET",
    path: "/api/v0/history",
    tags,
    summary: "The last 100 actions, newest first; filtered and paged on request",
    description:
      "Without parameters: the last 100 finished actions, newest first. `stack`, `actor`, `via` and `outcome` " +
      "narrow the list (all given must hold); `limit` sets the page size; `cursor` (a previous page's " +
      "`nextCursor`) asks for the entries older than that page. Actions recorded meanwhile never shift " +
      "a later page: no entry is repeated or skipped. A scoped API key sees only its stacks.",
    errors: {
      400: "A parameter is malformed (the message names it), e.g. a cursor this API did not give out",
    },
  })
    .input(historyQuery.optional())
    .output(
      z.object({
        history: z.array(historyEntry),
        nextCursor: z.string().nullable().meta({
          description: "Pass as `cursor` for the next, older page; null when nothing older is left",
        }),
      }),
    ),
  overview: keyOrSession({
    permission: "read",
    keyScope: { read: "history" },
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
