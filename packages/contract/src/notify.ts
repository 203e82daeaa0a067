import { z } from "zod";
import { sessionOnly } from "./common.ts";
import { httpUrl } from "./connection.ts";

const tags = ["Failure alerts"];

const reservedTopics = [
  "docs",
  "static",
  "file",
  "app",
  "metrics",
  "account",
  "settings",
  "signup",
  "login",
  "v1",
];

/** ntfy's own topic rule, so a topic that ntfy would refuse is refused here first. */
export const ntfyTopic = z
  .string()
  .regex(/^[-_A-Za-z0-9]{1,64}$/, "topic must be 1-64 letters, digits, '-' or '_'")
  .refine((topic) => !reservedTopics.includes(topic), "topic is a name ntfy reserves")
  .meta({ example: "stackgate-alerts" });

export const vulnerabilitySeverity = z
  .enum(["critical", "high", "medium", "low"], {
    error: "vulnerabilitySeverity must be one of critical, high, medium, low",
  })
  .meta({ description: "The lowest severity that alerts (default critical)", example: "critical" });

const token = z
  .string()
  .max(512, "token must be at most 512 characters")
  .regex(/^[\x21-\x7e]*$/, "token must be printable characters without spaces");

export const notifySettingsInput = z.strictObject({
  url: httpUrl("url"),
  topic: ntfyTopic,
  token: token
    .nullable()
    .optional()
    .meta({
      description:
        "Write-only. Omit to keep the saved token (only while the server's origin stays the same: " +
        "a token is never sent to another server); null or empty to remove it.",
    }),
  enabled: z.boolean(),
  vulnerabilityAlerts: z
    .boolean()
    .optional()
    .meta({
      description:
        "Also alert, once per image, when a scan finds vulnerabilities at or above `vulnerabilitySeverity` " +
        "that the image's previous successful scan did not have. Omitted: keep the saved choice (default off).",
    }),
  vulnerabilitySeverity: vulnerabilitySeverity.optional(),
  alertOnFirstScan: z
    .boolean()
    .optional()
    .meta({
      description:
        "Whether an image's first successful scan alerts too (every finding is new then). Omitted: keep the " +
        "saved choice (default off).",
    }),
});

const testSettingsInput = notifySettingsInput
  .omit({ enabled: true })
  .extend({ enabled: z.boolean().optional() });

/**
 * No body, an empty one (`{}`, what an empty form decodes to) and `null` all mean "test the saved
 * settings".
 */
function noSettings(body: z.input<typeof testSettingsInput> | Record<string, never> | null | undefined) {
  const empty =
    body === null || (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0);
  return empty ? undefined : body;
}

export const notifySettings = z.object({
  url: z.string(),
  topic: z.string(),
  enabled: z.boolean(),
  tokenSet: z.boolean().meta({ description: "Whether a token is saved; the token itself is never returned" }),
  vulnerabilityAlerts: z.boolean(),
  vulnerabilitySeverity,
  alertOnFirstScan: z.boolean(),
});

export const notifyProcedures = {
  get: sessionOnly({
    permission: "admin",
    method: "GET",
    path: "/api/v0/deploy/credentials/notify",
    tags,
    summary: "The failure-alert settings, without the token",
  }).output(z.object({ settings: notifySettings.nullable() })),
  save: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/deploy/credentials/notify",
    tags,
    summary: "Save the failure-alert settings",
  })
    .input(notifySettingsInput)
    .output(z.object({ settings: notifySettings })),
  remove: sessionOnly({
    permission: "admin",
    method: "DELETE",
    path: "/api/v0/deploy/credentials/notify",
    tags,
    summary: "Remove the failure-alert settings",
  }).output(z.object({ deleted: z.boolean() })),
  test: sessionOnly({
    permission: "admin",
    method: "POST",
    path: "/api/v0/deploy/credentials/notify/test",
    tags,
    summary: "Send a test alert with the saved settings, or with those in the body",
    errors: { 404: "No settings saved and none in the body" },
  })
    .input(z.preprocess(noSettings, testSettingsInput.optional()))
    .output(
      z.object({
        delivered: z.boolean(),
        status: z.number().int().nullable().meta({ description: "ntfy's HTTP status, when it answered" }),
        message: z.string().meta({ example: "ntfy accepted the message (id q3Zx9PLk2mVa)" }),
      }),
    ),
};
