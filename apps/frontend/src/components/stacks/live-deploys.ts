import { useMutationState, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef } from "react";
import { orpc } from "../../lib/api.ts";
import {
  type DeployEvent,
  type DeployRun,
  useDeployEvents,
  useKomodoDeployEvents,
  useRunningDeploys,
} from "../../lib/deploy-events.ts";
import { useTIsolated } from "../I18nProvider.tsx";
import { showToast } from "../ui/Toast.tsx";
import type { DeployAction } from "./model.ts";

export const DEPLOY_MUTATION_KEY = ["stacks", "deploy"] as const;

export interface DeployRequest {
  stack: string;
  action: DeployAction;
}

/**
 * A deploy in progress as the pages show it: from the live events, or this tab's own request. One
 * from Komodo (`source: "komodo"`, someone in Komodo's UI or its auto-update) names its actor
 * "Komodo: …".
 */
export type LiveRun = Pick<DeployRun, "stack" | "action" | "actorName" | "via" | "startedAt" | "source">;

/**
 * The runs this tab started, by id: their `finished` events are not toasted again, since this tab
 * reports the answer to its own request. A run is this tab's when its `started` event (or the
 * `subscribed` list, after a reconnect) names this person's session on a stack and action this tab
 * has a request pending for. A pipeline's or a teammate's run on the same stack has its own id and
 * is toasted.
 */
const ownRunIds = new Set<string>();

function claimIfOwn(run: DeployRun, userName: string, pending: DeployRequest[]) {
  const mine =
    run.via === "session" &&
    run.actorName === userName &&
    pending.some((request) => request.stack === run.stack && request.action === run.action);
  if (mine) ownRunIds.add(run.id);
}

/** This tab's deploy requests still waiting for their answer. */
function usePendingRequests(): (DeployRequest & { submittedAt: number })[] {
  return useMutationState({
    filters: { mutationKey: DEPLOY_MUTATION_KEY, status: "pending" },
    select: (mutation) => ({
      ...(mutation.state.variables as DeployRequest),
      submittedAt: mutation.state.submittedAt,
    }),
  });
}

/**
 * The deploy in progress per stack, whoever started it. This tab's own request counts from the click,
 * so the row shows it at once even if the live stream is reconnecting.
 */
export function useLiveRuns(userName: string): Map<string, LiveRun> {
  const { running, komodoRunning } = useRunningDeploys();
  const pending = usePendingRequests();
  return useMemo(() => {
    const runs = new Map<string, LiveRun>();
    // Stackgate's own deploys win over what Komodo runs on the same stack.
    for (const run of komodoRunning) runs.set(run.stack, run);
    for (const request of pending) {
      runs.set(request.stack, {
        stack: request.stack,
        action: request.action,
        actorName: userName,
        via: "session",
        startedAt: new Date(request.submittedAt),
      });
    }
    for (const run of running) runs.set(run.stack, run);
    return runs;
  }, [running, komodoRunning, pending, userName]);
}

/**
 * Toasts the result of deploys started elsewhere (pipelines, teammates, and in Komodo itself) while
 * the page is open, and any deploy that did not stay up once watched. A run from Komodo is not in the history, so only the stacks are fetched again.
 */
export function useToastOtherDeploys(userName: string) {
  const tIsolated = useTIsolated();
  const queryClient = useQueryClient();
  const pending = usePendingRequests();
  const pendingNow = useRef(pending);
  pendingNow.current = pending;
  const toast = (event: DeployEvent) => {
    if (event.type === "subscribed") {
      for (const run of event.running) claimIfOwn(run, userName, pendingNow.current);
      return;
    }
    if (event.type === "started") {
      claimIfOwn(event.run, userName, pendingNow.current);
      return;
    }
    if (event.type === "log") return;
    if (event.type === "settled") {
      // Even this tab's own deploy: its request was answered before the services were watched.
      const { run } = event;
      if (run.settle?.state === "unstable") {
        showToast({
          tone: "warning",
          title: tIsolated("runs.unstableToast", { stack: run.stack }),
          description: run.settle.reason ?? undefined,
        });
      }
      return;
    }
    if (ownRunIds.delete(event.run.id)) return;
    const { run } = event;
    const params = { actor: run.actorName, stack: run.stack };
    if (run.success) {
      showToast({ tone: "success", title: tIsolated(`stacks.others.done.${run.action}`, params) });
    } else {
      showToast({
        tone: "danger",
        title: tIsolated(`stacks.others.failed.${run.action}`, params),
        description: run.message,
      });
    }
  };
  useDeployEvents(toast);
  useKomodoDeployEvents((event) => {
    if (event.type !== "finished") return;
    void queryClient.invalidateQueries({ queryKey: orpc.stacks.list.key() });
    toast(event);
  });
}
