import { useMutation } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { api } from "../../../lib/api.ts";
import { useRefreshAfterDeploy } from "../../../lib/queries.ts";
import { useT } from "../../I18nProvider.tsx";
import { deployFailureReason } from "../deploy.tsx";
import { DEPLOY_MUTATION_KEY, type DeployRequest } from "../live-deploys.ts";
import type { BulkAction, BulkRunView, StackRunState } from "./bulk-model.ts";
import { isDeployAction } from "./bulk-model.ts";
import { type LimitedRun, runLimited } from "./run-limited.ts";

export interface BulkRun extends BulkRunView {
  id: number;
  limit: number;
  /** Set once the person stopped it: how many were still waiting then (now cancelled). */
  cancelledUnsent: number | null;
}

/**
 * Runs one bulk action at a time over the chosen stacks, at most `limit` requests at once, each through
 * the normal API (so every deploy is in the history under this person). Deploys go through the same
 * mutation key as a single deploy: the rows show them running at once and their live events are not
 * toasted again. `cancel` drops the stacks not yet sent; the sent ones run to their end.
 */
export function useBulkRun() {
  const t = useT();
  const refreshAfterDeploy = useRefreshAfterDeploy();
  const deploy = useMutation({
    mutationKey: DEPLOY_MUTATION_KEY,
    mutationFn: (request: DeployRequest) => api.deploy.run(request),
    onSettled: refreshAfterDeploy,
  });
  const deployAsync = deploy.mutateAsync;
  const [run, setRun] = useState<BulkRun | null>(null);
  const limited = useRef<LimitedRun<string> | null>(null);
  const nextId = useRef(1);

  const setState = useCallback((id: number, stack: string, state: StackRunState) => {
    setRun((current) => {
      if (!current || current.id !== id) return current;
      const states = new Map(current.states);
      states.set(stack, state);
      return { ...current, states };
    });
  }, []);

  const perform = useCallback(
    async (action: BulkAction, stack: string) => {
      if (isDeployAction(action)) await deployAsync({ stack, action });
      else if (action === "delete") await api.stacks.remove({ stack });
      else await api.stacks.setPollForUpdates({ stack, enabled: action === "poll-on" });
    },
    [deployAsync],
  );

  const start = useCallback(
    (action: BulkAction, stacks: readonly string[], limit: number) => {
      const id = nextId.current++;
      setRun({
        id,
        action,
        limit,
        stacks: [...stacks],
        states: new Map(stacks.map((stack) => [stack, { status: "waiting" } as const])),
        cancelledUnsent: null,
      });
      limited.current = runLimited(stacks, limit, async (stack) => {
        setState(id, stack, { status: "running", startedAt: Date.now() });
        try {
          await perform(action, stack);
          setState(id, stack, { status: "succeeded", finishedAt: Date.now() });
        } catch (error) {
          setState(id, stack, { status: "failed", reason: deployFailureReason(error, t) });
        }
      });
      if (!isDeployAction(action)) void limited.current.done.then(refreshAfterDeploy);
    },
    [perform, setState, t, refreshAfterDeploy],
  );

  const cancel = useCallback(() => {
    const unsent = limited.current?.cancel() ?? [];
    setRun((current) => {
      if (!current) return current;
      const states = new Map(current.states);
      for (const stack of unsent) states.set(stack, { status: "cancelled" });
      return { ...current, states, cancelledUnsent: unsent.length };
    });
    return unsent.length;
  }, []);

  const dismiss = useCallback(() => {
    limited.current?.cancel();
    limited.current = null;
    setRun(null);
  }, []);

  // Leaving the page (or this view going away) sends nothing more; what was sent keeps running in
  // Komodo. `pagehide` comes before the browser aborts the requests in flight, whose failures would
  // otherwise start the next stacks while the page goes away.
  useEffect(() => {
    const stop = () => void limited.current?.cancel();
    window.addEventListener("pagehide", stop);
    return () => {
      window.removeEventListener("pagehide", stop);
      stop();
    };
  }, []);

  return { run, start, cancel, dismiss };
}
