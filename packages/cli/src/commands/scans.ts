import { durationOption } from "../duration.ts";
import { CliError, EXIT, printable } from "../exit.ts";
import { sleep, unexpectedAnswer } from "../http.ts";
import { table } from "../table.ts";
import { type CommandContext, type Flags, printJson } from "./context.ts";

const SEVERITIES = ["critical", "high", "medium", "low", "unknown"] as const;
type Severity = (typeof SEVERITIES)[number];

/** How long --fail-on waits by default for the first scan of an image never scanned yet. */
export const DEFAULT_SCAN_WAIT = "2m";
const SCAN_POLL_MS = 2_000;

/** The severities each --fail-on level counts. */
const GATES: Record<string, Severity[]> = { critical: ["critical"], high: ["critical", "high"] };

interface ImageEntry {
  image: string;
  stacks: string[];
  status: string;
  counts: Record<Severity, number>;
  scannedAt: string | null;
  error?: string;
  vulnerabilities?: Array<{
    id: string;
    severity: Severity;
    package: string;
    installedVersion: string;
    fixedVersion: string | null;
  }>;
}

export async function scansCommand(context: CommandContext, flags: Flags): Promise<number> {
  const failOn = typeof flags["fail-on"] === "string" ? flags["fail-on"] : undefined;
  if (failOn !== undefined && !GATES[failOn])
    throw new CliError(`--fail-on must be critical or high (got '${printable(failOn)}')`, EXIT.usage);
  const stack = typeof flags.stack === "string" ? flags.stack : undefined;
  const image = typeof flags.image === "string" ? flags.image : undefined;

  const waitText = typeof flags["scan-wait"] === "string" ? flags["scan-wait"] : DEFAULT_SCAN_WAIT;
  const waitMs = durationOption("scan-wait", waitText, { examples: "0, 90s or 5m", zero: "allowed" });

  const select = async () => {
    let images = image ? [await readImage(context, image)] : await readImages(context);
    if (stack) {
      images = images.filter((entry) => entry.stacks.includes(stack));
      if (images.length === 0)
        throw new CliError(
          image
            ? `Stack '${stack}' does not use ${image}`
            : `No image of stack '${stack}' is known: check the name with 'stackgate stacks' (a scoped key sees only its stacks)`,
          EXIT.usage,
        );
    }
    return images;
  };
  let images = await select();
  // A gate judges scans: an image listed for the first time is queued by that listing, so wait for it.
  const waitUntil = Date.now() + waitMs;
  const neverScanned = () => images.filter((entry) => entry.scannedAt === null && entry.status !== "failed");
  if (failOn && neverScanned().length > 0 && waitMs > 0) {
    context.stderr.write(
      `Waiting up to ${waitText} for the first scan of ${neverScanned().length} image(s)…\n`,
    );
    while (neverScanned().length > 0 && Date.now() + SCAN_POLL_MS < waitUntil) {
      await sleep(SCAN_POLL_MS);
      images = await select();
    }
  }

  const counted = failOn ? GATES[failOn] : [];
  const findingsOf = (entry: ImageEntry) =>
    counted.reduce((sum, severity) => sum + entry.counts[severity], 0);
  const failing = images.filter((entry) => findingsOf(entry) > 0);

  if (context.json) {
    printJson(context, { images, failOn: failOn ?? null, failing: failing.map((entry) => entry.image) });
  } else {
    printImages(context, images);
    if (failOn) {
      for (const entry of images.filter((each) => each.scannedAt === null))
        context.stderr.write(`Not judged: ${entry.image} has no successful scan yet (${entry.status})\n`);
      for (const entry of failing)
        context.stderr.write(
          `${entry.image}: ${counted.map((severity) => `${entry.counts[severity]} ${severity}`).join(", ")}\n`,
        );
      context.stdout.write(
        failing.length > 0
          ? `Gate failed: ${failing.length} image(s) have findings at or above ${failOn}.\n`
          : `Gate passed: no image has findings at or above ${failOn}.\n`,
      );
    }
  }
  return failing.length > 0 ? EXIT.failed : EXIT.success;
}

async function readImages(context: CommandContext): Promise<ImageEntry[]> {
  const answer = await context.api.call("GET", "/api/v0/security/images", {
    retryUntil: Date.now() + 30_000,
  });
  if (answer.status !== 200) throw unexpectedAnswer(answer, "read the image scans");
  const scanner = answer.json.scanner;
  if (scanner && scanner.available === false && !context.json)
    context.stderr.write(
      `Note: Stackgate cannot scan right now: ${printable(String(scanner.reason ?? ""))}\n`,
    );
  return answer.json.images;
}

async function readImage(context: CommandContext, image: string): Promise<ImageEntry> {
  const answer = await context.api.call("GET", `/api/v0/security/image?${new URLSearchParams({ image })}`, {
    retryUntil: Date.now() + 30_000,
  });
  if (answer.status === 404)
    throw new CliError(`No stack uses ${printable(image)} and no scan of it is stored`, EXIT.usage);
  if (answer.status !== 200) throw unexpectedAnswer(answer, `read the scan of ${image}`);
  return answer.json;
}

function printImages(context: CommandContext, images: ImageEntry[]) {
  const rows = images.map((entry) => [
    entry.image,
    entry.scannedAt ? entry.status : `${entry.status} (not scanned yet)`,
    ...SEVERITIES.slice(0, 4).map((severity) => String(entry.counts[severity])),
    entry.stacks.join(", "),
  ]);
  context.stdout.write(
    `${table(["IMAGE", "STATUS", "CRITICAL", "HIGH", "MEDIUM", "LOW", "STACKS"], rows)}\n`,
  );
  const [only] = images;
  if (images.length === 1 && only.vulnerabilities?.length) {
    const shown = only.vulnerabilities.slice(0, 50);
    context.stdout.write(
      `\n${table(
        ["SEVERITY", "ID", "PACKAGE", "INSTALLED", "FIXED IN"],
        shown.map((finding) => [
          finding.severity,
          finding.id,
          finding.package,
          finding.installedVersion,
          finding.fixedVersion ?? "-",
        ]),
      )}\n`,
    );
    if (only.vulnerabilities.length > shown.length)
      context.stdout.write(`… and ${only.vulnerabilities.length - shown.length} more (--json lists all)\n`);
  }
}
