import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef } from "react";
import { useDeployEvents } from "../../lib/deploy-events.ts";
import { runLogsOptions, runOptions } from "../../lib/queries.ts";
import { withNewStages } from "./run-model.ts";

/**
 * One run and its stages, kept live: `started` moves its step, `log` adds the stages Komodo has
 * finished, `finished` gives its outcome (and the stages are read again whole), `settled` says
 * whether it stayed up. After a reconnect both are read again, since events may have been missed.
 */
export function useLiveRun(id: string) {
  const queryClient = useQueryClient();
  const run = useQuery(runOptions(id));
  const logs = useQuery(runLogsOptions(id));
  const subscribedBefore = useRef(false);
  const runKey = useMemo(() => runOptions(id).queryKey, [id]);
  const logsKey = useMemo(() => runLogsOptions(id).queryKey, [id]);

  useDeployEvents((event) => {
    switch (event.type) {
      case "subscribed":
        if (subscribedBefore.current) {
          void queryClient.invalidateQueries({ queryKey: runKey });
          void queryClient.invalidateQueries({ queryKey: logsKey });
        }
        subscribedBefore.current = true;
        return;
      case "started":
        if (event.run.id === id)
          queryClient.setQueryData(runKey, { run: { ...event.run, status: "running" } });
        return;
      case "log":
        if (event.runId === id)
          queryClient.setQueryData(logsKey, (known) =>
            known ? { ...known, stages: withNewStages(known.stages, event.stages) } : known,
          );
        return;
      case "finished":
      case "settled":
        if (event.run.id === id)
          queryClient.setQueryData(runKey, { run: { ...event.run, status: "finished" } });
        return;
    }
  });

  // However the end became known (an event, or the slow read while the stream was down), the
  // stages are read once more: the read holds every stage, cut where the run's output was cut.
  const status = run.data?.run.status;
  const wasRunning = useRef(false);
  useEffect(() => {
    if (status === "running") wasRunning.current = true;
    else if (status === "finished" && wasRunning.current) {
      wasRunning.current = false;
      void queryClient.invalidateQueries({ queryKey: logsKey });
    }
  }, [status, queryClient, logsKey]);

  return { run, logs };
}
