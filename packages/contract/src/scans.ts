import { z } from "zod";
import { isoDate, keyOrSession } from "./common.ts";
import { parseImageReference } from "./image-reference.ts";

const tags = ["Security"];

/**
 * An image reference as Docker and Trivy parse it. The grammar also keeps anything that could
 * be read as an option or a shell word away from the scanner's command line.
 */
export const imageRef = z
  .string()
  .max(1024, "image reference must be at most 1024 characters")
  .superRefine((ref, context) => {
    const parsed = parseImageReference(ref);
    if (!parsed.ok)
      context.addIssue({ code: "custom", message: `invalid image reference: ${parsed.reason}` });
  })
  .meta({
    description:
      "A Docker image reference, `[registry/]repository[:tag][@digest]`; it never starts with '-' and " +
      "holds no whitespace or shell characters",
    example: "ghcr.io/acme/web:1.4",
  });

export const scanStatus = z.enum(["queued", "scanning", "done", "failed", "interrupted"]).meta({
  description:
    "`queued` waits for a free scanner slot (two scans run at a time); `scanning` runs now; `done` holds " +
    "the result of the last scan; `failed` means the last attempt failed (see `errorKind`, `error`), the " +
    "counts are those of the last successful scan, zero when there was none; `interrupted` was cut off by " +
    "a restart and is queued again by the next listing or background sweep. While the scanner itself " +
    "is not available, scans stay `queued` (see `scanner` in the image list).",
});

export const scanErrorKind = z.enum(["unauthorized", "not-found", "unavailable", "timeout", "other"]).meta({
  description:
    "`unauthorized`: the registry refused the pull (private image, missing credentials); `not-found`: no " +
    "such tag or manifest; `unavailable`: the scanner or the registry could not be reached; `timeout`: the " +
    "scan took longer than SCANNER_SCAN_TIMEOUT_SECONDS; `other`: anything else (also a reference Trivy " +
    "could not be given).",
});

export const severityCounts = z.object({
  critical: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
  unknown: z.number().int(),
});

export const vulnerability = z.object({
  id: z.string().meta({ example: "CVE-2024-9143" }),
  severity: z.enum(["critical", "high", "medium", "low", "unknown"]),
  package: z.string().meta({ example: "libcrypto3" }),
  installedVersion: z.string().meta({ example: "3.0.15-r0" }),
  fixedVersion: z
    .string()
    .nullable()
    .meta({ description: "null when no fix exists; may list several versions", example: "3.0.15-r1" }),
  title: z.string().nullable(),
  url: z.string().nullable().meta({ example: "https://avd.aquasec.com/nvd/cve-2024-9143" }),
});

export const imageScan = z.object({
  // Not `imageRef`: a stack may name an image we refuse to scan, and it is still listed (as failed).
  image: z.string().meta({ example: "ghcr.io/acme/web:1.4" }),
  stacks: z.array(z.string()).meta({ description: "Names of the stacks using the image, live from Komodo" }),
  status: scanStatus,
  counts: severityCounts,
  fixable: z.number().int().meta({ description: "Vulnerabilities that have a fixed version" }),
  requestedAt: isoDate.nullable().meta({ description: "When a scan of the image was last queued" }),
  attemptedAt: isoDate.nullable().meta({ description: "When the last scan attempt started" }),
  scannedAt: isoDate.nullable().meta({ description: "When the last successful scan finished" }),
  errorKind: scanErrorKind.optional().meta({ description: "Only when `status` is `failed`" }),
  error: z.string().optional().meta({ description: "Only when `status` is `failed`: the scanner's reason" }),
});

export const scannerStatus = z
  .object({
    available: z.boolean(),
    reason: z
      .string()
      .optional()
      .meta({ description: "Only when not available: why no scan can run, and what to do about it" }),
    since: isoDate.optional().meta({ description: "Only when not available: when a scan first met this" }),
  })
  .meta({
    description:
      "Whether image scans can run. When the scanner cannot be used (Trivy is not installed, its server is " +
      "not reachable), scans are not marked failed: they stay `queued` and run once it is back; listings " +
      "and background sweeps try it again now and then, a scan request at once.",
    example: {
      available: false,
      reason:
        "Trivy not found (TRIVY_BIN=trivy): install Trivy and run `trivy server --listen 127.0.0.1:4954`, or set TRIVY_BIN to its path",
      since: "2026-11-22T10:15:00.000Z",
    },
  });

export const imageScanDetail = imageScan.extend({
  vulnerabilities: z.array(vulnerability).meta({ description: "Worst severity first" }),
});

const upstreamErrors = {
  502: "Komodo refused the request or could not be reached; the message carries its reason",
  503: "No Komodo connection yet",
};

export const scanProcedures = {
  images: keyOrSession({
    permission: "read",
    keyScope: { read: "scans" },
    method: "GET",
    path: "/api/v0/security/images",
    tags,
    summary: "The latest scan result of every image a stack uses, worst first",
    description:
      "One entry per image used by a stack (stacks are read live from Komodo). Images never scanned, " +
      "and scans interrupted by a restart, are queued by this call. Worst first: by critical, then " +
      "high, medium, low and unknown counts; among equal counts a failed scan comes first, then images " +
      "without any result yet, then by name.",
    errors: upstreamErrors,
  }).output(z.object({ images: z.array(imageScan), scanner: scannerStatus.optional() })),
  image: keyOrSession({
    permission: "read",
    keyScope: { read: "scans" },
    method: "GET",
    path: "/api/v0/security/image",
    tags,
    summary: "One image's latest scan result with its vulnerabilities",
    description:
      "Like an entry of the image list, plus the vulnerabilities. An image a stack uses but that was " +
      "never scanned (or was interrupted) is queued by this call.",
    errors: { 404: "No stack uses the image and no scan of it is stored", ...upstreamErrors },
  })
    .input(z.strictObject({ image: imageRef }))
    .output(imageScanDetail),
  scan: keyOrSession({
    permission: "scan",
    keyScope: { read: "scans" },
    method: "POST",
    path: "/api/v0/security/scan",
    tags,
    summary: "Queue scans of the given images, or of every image when no list is sent",
    description:
      "Only images used by a stack are accepted: any other image makes the whole request a 400 that " +
      "names it, and nothing is queued. An image already queued or scanning stays where it is and is " +
      "listed under `alreadyQueued`.",
    errors: {
      400:
        "The body is malformed, an image reference is invalid, or no stack uses an image (the message and " +
        "`images` name those images)",
      ...upstreamErrors,
    },
  })
    .input(
      z
        .strictObject({
          images: z
            .array(imageRef)
            .min(1, "images must not be empty; send no list to scan every image")
            .optional(),
        })
        .optional(),
    )
    .output(
      z.object({
        queued: z.array(z.string()).meta({ description: "Images queued by this request" }),
        alreadyQueued: z
          .array(z.string())
          .meta({ description: "Images that were already queued or scanning" }),
      }),
    ),
};
