import { createHash } from "node:crypto";
import type { AlertEventName } from "@stackgate/contract";
import type { DeployRun, FinishedRun } from "../deploy/run.ts";
import type { Vulnerability } from "../scans/trivy-report.ts";

/**
 * What happened, once, whichever channels hear of it. `id` names the event itself: the same event
 * reported twice (by two backends, or twice by one) has the same id, and each channel gets it once.
 */
export type AlertEvent =
  | { type: "deploy.failed" | "deploy.succeeded"; id: string; run: FinishedRun }
  | { type: "deploy.unstable"; id: string; run: DeployRun | FinishedRun; reason: string }
  | {
      type: "vulnerability.new";
      id: string;
      image: string;
      stacks: string[];
      /** The previous successful scan's findings; null on the image's first. */
      previous: readonly Vulnerability[] | null;
      vulnerabilities: readonly Vulnerability[];
    }
  | { type: "update.available"; id: string; stack: string; services: { service: string; image: string }[] }
  | { type: "test"; id: string };

export type AlertEventType = AlertEventName | "test";

export const deployFinishedEvent = (run: FinishedRun): AlertEvent => {
  const type = run.success ? "deploy.succeeded" : "deploy.failed";
  return { type, id: `${type}:${run.id}`, run };
};

export const deployUnstableEvent = (run: DeployRun | FinishedRun, reason: string): AlertEvent => ({
  type: "deploy.unstable",
  id: `deploy.unstable:${run.id}`,
  run,
  reason,
});

/** Identified by the image and both scans' findings: the same scan reported again is the same event. */
export function vulnerabilityEvent(
  image: string,
  stacks: string[],
  previous: readonly Vulnerability[] | null,
  vulnerabilities: readonly Vulnerability[],
): AlertEvent {
  const digest = createHash("sha256")
    .update(JSON.stringify([image, previous?.map(findingKey) ?? null, vulnerabilities.map(findingKey)]))
    .digest("base64url");
  return {
    type: "vulnerability.new",
    id: `vulnerability.new:${digest}`,
    image,
    stacks,
    previous,
    vulnerabilities,
  };
}

const findingKey = (finding: Vulnerability) => `${finding.id} ${finding.package}`;

/** The stacks an event concerns, which a channel's stack patterns choose from; none: every channel's. */
export function stacksOf(event: AlertEvent): string[] | null {
  switch (event.type) {
    case "deploy.failed":
    case "deploy.succeeded":
    case "deploy.unstable":
      return [event.run.stack];
    case "vulnerability.new":
      return event.stacks;
    case "update.available":
      return [event.stack];
    case "test":
      return null;
  }
}
