import type { commitChange, serviceChange } from "@stackgate/contract";
import type { z } from "zod";
import type { Logger } from "../platform/logger.ts";
import type { KomodoClient } from "../upstream/komodo-client.ts";
import { type RunningService, runningServices } from "../upstream/running-services.ts";

export type ServiceChange = z.infer<typeof serviceChange>;
export type CommitChange = z.infer<typeof commitChange>;

/** What a stack runs at one moment: its services and, for a repository stack, the deployed commit. */
export interface StackSnapshot {
  services: RunningService[];
  commit: { hash: string | null; message: string | null } | null;
}

/**
 * What the stack runs now, read from Komodo: its services (`ListStackServices`) and, `withCommit`,
 * the deployed commit (`GetStack`), in two calls at once. A record, not a condition of the deploy:
 * what cannot be read is null, with a line in the log.
 */
export async function readSnapshot(
  client: KomodoClient,
  stack: string,
  logger: Logger,
  { withCommit = true } = {},
): Promise<StackSnapshot | null> {
  const [services, found] = await Promise.allSettled([
    client.listStackServices(stack),
    withCommit ? client.getStack(stack) : undefined,
  ]);
  if (services.status === "rejected") {
    logger.warn({ err: services.reason, stack }, "what the stack runs could not be read from Komodo");
    return null;
  }
  const info = found.status === "fulfilled" ? found.value?.info : undefined;
  const hash = info?.deployed_hash ?? null;
  return {
    services: runningServices(services.value),
    commit: hash === null ? null : { hash, message: info?.deployed_message ?? null },
  };
}

/** Each service before and after, by name: a service that came or went has null on its other side. */
export function changesBetween(before: StackSnapshot | null, after: StackSnapshot | null): ServiceChange[] {
  const names = [
    ...new Set([...(before?.services ?? []), ...(after?.services ?? [])].map((each) => each.service)),
  ];
  return names.map((service) => {
    const was = before?.services.find((each) => each.service === service);
    const is = after?.services.find((each) => each.service === service);
    return { service, image: (is ?? was)!.image, from: was?.digest ?? null, to: is?.digest ?? null };
  });
}

/** A repository stack's commit before and after; null for a stack without one. */
export function commitBetween(
  before: StackSnapshot | null,
  after: StackSnapshot | null,
): CommitChange | null {
  if (!before?.commit && !after?.commit) return null;
  return {
    from: before?.commit?.hash ?? null,
    to: after?.commit?.hash ?? null,
    message: (after?.commit ?? before?.commit)?.message ?? null,
  };
}

/** Whether a change changed what runs: both digests known and different, or one side unknown. */
export const changedWhatRuns = ({ from, to }: ServiceChange) => from !== to;
